import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import { LoginArgs } from './auth.inputs.js';
import { AccessToken } from './auth.types.js';
import { login } from './auth.service.js';
import type { AppContext } from '../graphql/context.js';

@Resolver()
export class AuthResolver {
  @Mutation(() => AccessToken, { description: 'Signs in with email and password; open to anyone' })
  login(@Args() args: LoginArgs, @Ctx() context: AppContext): Promise<AccessToken> {
    return login(context.config.jwt, args);
  }
}
