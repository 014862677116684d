import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import type { AppContext } from './context.js';
import { LoginArgs } from './login.inputs.js';
import type { LoginService } from './login.service.js';
import { AccessToken } from './login.types.js';

/** Built by the composition root with its service (src/service.ts). */
@Resolver()
export class LoginResolver {
  constructor(private readonly logins: LoginService) {}

  @Mutation(() => AccessToken, { description: 'Signs in with email and password; open to anyone' })
  login(@Args() args: LoginArgs, @Ctx() context: AppContext): Promise<AccessToken> {
    return this.logins.login(context.config.jwt, args);
  }
}
