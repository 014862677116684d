import { Field, Int, ObjectType } from 'type-graphql';
import type { SignedAccessToken } from './jwt.js';

@ObjectType({ description: 'An access token to send as `Authorization: Bearer <accessToken>`' })
export class AccessToken implements SignedAccessToken {
  @Field()
  accessToken!: string;

  @Field(() => String)
  tokenType!: 'Bearer';

  @Field(() => Int, { description: 'Seconds until the token expires' })
  expiresIn!: number;
}
