import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import { OncePerRequest } from '../graphql/index.js';
import type { AppContext } from './context.js';
import { LoginArgs } from './login.inputs.js';
import type { LoginService } from './login.service.js';
import { SessionTokens } from './login.types.js';

/** Built by the composition root with its service (src/service.ts). */
@Resolver()
export class LoginResolver {
  constructor(private readonly logins: LoginService) {}

  @OncePerRequest()
  @Mutation(() => SessionTokens, {
    description:
      'Signs in with email and password; open to anyone. Without tenantId it signs in the platform account of the email, ' +
      'else its only tenant account: an account of a tenant whose email exists in several tenants must send tenantId. ' +
      'Any failure is the same 401 "Invalid email or password" (a disabled account, only after its right password: 401 "Account disabled"). Repeated failures for one email or from one IP ' +
      'must then wait, growing with each failure: an attempt before its wait is over is refused with 429 (Retry-After). ' +
      'A sign-in starts a session: the access token names it, and the refresh token renews it (refreshAccessToken).',
  })
  login(@Args() args: LoginArgs, @Ctx() context: AppContext): Promise<SessionTokens> {
    return this.logins.login(context.config, args, { ip: context.ip, userAgent: context.userAgent ?? null });
  }
}
