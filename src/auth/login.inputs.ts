import { IsEmail, IsNotEmpty, IsOptional, MaxLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { EMAIL_MAX_LENGTH } from '../shared/credential-rules.js';

/** `login` / `POST /auth/login`: the credentials, validated before the service runs. */
@ArgsType()
export class LoginArgs {
  @Field()
  @IsEmail()
  @MaxLength(EMAIL_MAX_LENGTH)
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
