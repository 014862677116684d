import { Args, Authorized, Ctx, Mutation, Query, Resolver, UseMiddleware } from 'type-graphql';
import { Audited } from '../audit/index.js';
import { AccessToken, CurrentActor, type Actor, type AppContext } from '../auth/index.js';
import { OncePerRequest } from '../graphql/index.js';
import { ChangePasswordArgs, SessionIdArgs } from './session.inputs.js';
import type { SessionService } from './session.service.js';
import { EndedSession, EndedSessions, SessionView } from './session.types.js';
import { UserIdArgs } from './user.inputs.js';

/** Sessions and credentials in person. Thin: unpack, call the service. Built by the composition root (src/service.ts). */
@Resolver(() => SessionView)
export class SessionResolver {
  constructor(private readonly service: SessionService) {}

  @Authorized()
  @Query(() => [SessionView], { description: `Your live sign-in sessions, most recently used first (at most 100); current marks this request's. In person only (an API key: 403).` })
  mySessions(@CurrentActor() actor: Actor): Promise<SessionView[]> {
    return this.service.mine(actor);
  }

  @Authorized()
  @Query(() => SessionView, { description: "One of your live sessions; another user's or an ended one is 404. In person only." })
  session(@Args() { id }: SessionIdArgs, @CurrentActor() actor: Actor): Promise<SessionView> {
    return this.service.one(actor, id);
  }

  @Authorized()
  @OncePerRequest()
  @UseMiddleware(Audited('auth.session-end', { targetType: 'Session' }))
  @Mutation(() => EndedSession, {
    description: "Ends one of your sessions: its refresh token is refused at once, its access tokens from the next request. Another user's session is 404. In person only.",
  })
  endSession(@Args() { id }: SessionIdArgs, @CurrentActor() actor: Actor): Promise<EndedSession> {
    return this.service.endOwn(actor, id);
  }

  @Authorized()
  @OncePerRequest()
  @UseMiddleware(Audited('auth.logout', { targetType: 'Session' }))
  @Mutation(() => EndedSession, {
    description:
      "Signs out: ends the session of the access token sent (403 for an API key or a token made without login). Its access token is 401 from the next request; its refresh token is refused.",
  })
  logout(@CurrentActor() actor: Actor): Promise<EndedSession> {
    return this.service.logout(actor);
  }

  @Authorized('users:update')
  @Query(() => [SessionView], { description: "A user's live sign-in sessions, most recently used first (at most 100). Needs users:update; another tenant's user is 404." })
  userSessions(@Args() { id }: UserIdArgs, @CurrentActor() actor: Actor): Promise<SessionView[]> {
    return this.service.ofUser(actor, id);
  }

  @Authorized('users:update')
  @OncePerRequest()
  @UseMiddleware(Audited('auth.session-end', { targetType: 'User' }))
  @Mutation(() => EndedSessions, {
    description:
      "Ends every session of a user and every access token issued to them before (their token version is raised); answers how many sessions were live. " +
      "Needs users:update; another tenant's user is 404.",
  })
  endUserSessions(@Args() { id }: UserIdArgs, @CurrentActor() actor: Actor): Promise<EndedSessions> {
    return this.service.endAllOf(actor, id);
  }

  @Authorized()
  @OncePerRequest()
  @UseMiddleware(Audited('auth.password-change', { targetType: 'User' }))
  @Mutation(() => AccessToken, {
    description:
      'Changes your own password, proved with the current one (wrong: 403 naming currentPassword, counted as a failed sign-in; throttled: 429). ' +
      "In person only: an API key is 403 whatever its scopes. Ends every other session and every access token issued before; answers a fresh access token of this request's session (the one sent stops working), whose refresh token stays valid.",
  })
  changePassword(@Args() { currentPassword, newPassword }: ChangePasswordArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<AccessToken> {
    return this.service.changePassword(actor, context.config, context.ip, currentPassword, newPassword);
  }
}
