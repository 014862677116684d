import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('Session', { description: 'A sign-in session: made by login, carried on by refreshAccessToken, ended by logout or endSession.' })
export class SessionView {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The sign-in.' })
  createdAt!: Date;

  @Field({ description: 'The sign-in or the latest refresh.' })
  lastUsedAt!: Date;

  @Field({ description: 'The latest change of the session (a refresh, its end): its version for If-Match.' })
  updatedAt!: Date;

  @Field({ description: 'Unused until then (no refresh), the session is over: lastUsedAt + SESSION_TTL.' })
  expiresAt!: Date;

  @Field({ description: 'The client address of the sign-in or the latest refresh.' })
  ip!: string;

  @Field(() => String, { nullable: true, description: 'The User-Agent of the sign-in or the latest refresh (at most 256 characters); null when none was sent.' })
  userAgent!: string | null;

  @Field({ description: 'Whether this is the session of the access token the request was made with.' })
  current!: boolean;
}

@ObjectType({ description: 'A session just ended: its access tokens are refused from the next request, its refresh token at once.' })
export class EndedSession {
  @Field(() => ID)
  id!: string;

  @Field()
  endedAt!: Date;
}

@ObjectType({ description: "Every session of a user ended (the user's token version raised): how many were live." })
export class EndedSessions {
  @Field(() => ID, { description: 'The user.' })
  userId!: string;

  @Field(() => Int, { description: 'How many live sessions ended.' })
  ended!: number;
}
