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

/** What a sign-in and a refresh answer: the session's access token and its next refresh token. */
export interface SignedSessionTokens extends SignedAccessToken {
  refreshToken: string;
}

@ObjectType({
  description:
    'The tokens of a sign-in session: an access token to send as `Authorization: Bearer <accessToken>`, and a refresh token ' +
    'for refreshAccessToken (POST /auth/refresh) when it expires. Keep the refresh token secret; each refresh spends it and answers the next.',
})
export class SessionTokens extends AccessToken implements SignedSessionTokens {
  @Field({ description: 'Opaque; usable once (refreshAccessToken). Presenting a spent one ends the whole session.' })
  refreshToken!: string;
}
