import type { GraphQLSchema } from 'graphql';
import { AuditEventResolver, auditRestRoutes } from './audit/index.js';
import {
  authChecker,
  authRestRoutes,
  createActorResolver,
  createRequestContextFactory,
  jwtStrategy,
  LoginResolver,
  LoginService,
  type ActorResolver,
  type AppContext,
} from './auth/index.js';
import type { AppConfig } from './config.js';
import { buildAppSchema } from './graphql/build-schema.js';
import { createApp, type AppHandle } from './http/app.js';
import type { RestRoutes } from './http/rest-routes.js';
import type { Logger } from './logger.js';
import { MealMenuResolver, mealMenuRestRoutes } from './menus/index.js';
import { accessControlRestRoutes, PermissionResolver, RoleResolver, UserResolver, userAccountStore } from './users/index.js';

/**
 * The composition root: the one file that knows every area. An area adds its
 * resolvers and its REST table here; http/ and graphql/ stay generic, and
 * auth/ reads users through the port the users area implements.
 */
export const restRoutes: RestRoutes = {
  ...authRestRoutes,
  ...accessControlRestRoutes,
  ...mealMenuRestRoutes,
  ...auditRestRoutes,
};

export function buildServiceSchema(): Promise<GraphQLSchema> {
  return buildAppSchema<AppContext>({
    resolvers: [LoginResolver, UserResolver, RoleResolver, PermissionResolver, MealMenuResolver, AuditEventResolver],
    authChecker,
    instances: [new LoginResolver(new LoginService(userAccountStore))],
  });
}

export interface ServiceOptions {
  logger?: Logger;
  /** Replaces the credential strategies (tests); default: JWT (API keys plug in here). */
  resolveActor?: ActorResolver;
}

/** The HTTP application of the whole service. */
export function createService(config: AppConfig, schema: GraphQLSchema, options: ServiceOptions = {}): Promise<AppHandle> {
  const resolveActor = options.resolveActor ?? createActorResolver([jwtStrategy(config.jwt, userAccountStore)]);
  return createApp(config, schema, {
    routes: restRoutes,
    createContext: createRequestContextFactory(config, resolveActor),
    logger: options.logger,
  });
}
