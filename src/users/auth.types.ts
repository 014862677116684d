import { IsEmail, IsNotEmpty, IsOptional, MaxLength } from 'class-validator';
import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import type { SignedAccessToken } from '../auth/jwt.js';

@ArgsType()
export class LoginArgs {
  @Field()
  @IsEmail()
  @MaxLength(320)
  email!: string;

  @Field()
  @IsNotEmpty()
  @MaxLength(1024)
  password!: string;

  /** Needed only when the email exists in several tenants. */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsNotEmpty()
  tenantId?: string | null;
}

@ObjectType({ description: 'An access token to send as `Authorization: Bearer <accessToken>`' })
export class AccessToken implements SignedAccessToken {
  @Field()
  accessToken!: string;

  @Field(() => String)
  tokenType!: 'Bearer';

  @Field(() => Int, { description: 'Seconds until the token expires' })
  expiresIn!: number;
}
