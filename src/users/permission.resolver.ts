import { Authorized, Query, Resolver } from 'type-graphql';
import { permissions } from '../auth/index.js';

@Resolver()
export class PermissionResolver {
  @Authorized()
  @Query(() => [String], { description: 'Every permission string the service knows (`<area>:<action>`)' })
  permissions(): string[] {
    return [...permissions];
  }
}
