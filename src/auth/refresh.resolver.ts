import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import { OncePerRequest } from '../graphql/index.js';
import type { AppContext } from './context.js';
import { SessionTokens } from './login.types.js';
import { RefreshArgs } from './refresh.inputs.js';
import type { RefreshService } from './refresh.service.js';

/** Built by the composition root with its service (src/service.ts). */
@Resolver()
export class RefreshResolver {
  constructor(private readonly refreshes: RefreshService) {}

  @OncePerRequest()
  @Mutation(() => SessionTokens, {
    description:
      "A new access token and refresh token for a sign-in session, from its current refresh token; open to anyone (the token is the credential). " +
      'The refresh token sent is spent: sending it again ends the whole session (its access tokens too). An unknown, expired or ended ' +
      "session's token, or one of an account that can no longer sign in, is 401. Each refresh keeps the session for SESSION_TTL more.",
  })
  refreshAccessToken(@Args() { refreshToken }: RefreshArgs, @Ctx() context: AppContext): Promise<SessionTokens> {
    return this.refreshes.refresh(context.config, refreshToken, { ip: context.ip, userAgent: context.userAgent ?? null, requestId: context.requestId });
  }
}
