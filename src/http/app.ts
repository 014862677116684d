import express, { type Express } from 'express';
import type { GraphQLSchema } from 'graphql';
import { createActorResolver, type ActorResolver } from '../auth/credentials.js';
import { jwtStrategy } from '../auth/jwt.strategy.js';
import type { AppConfig } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { createApolloMount } from './apollo.js';
import { useDocs } from './docs.js';
import { useHealth } from './health.js';
import { OPENAPI_ENDPOINT, openApiOptions } from './openapi.js';
import { createRequestContextFactory } from './request-context.js';
import { restRoutes, type RestRoutes } from './rest-routes.js';
import { useSofaRest } from './sofa.js';
import { useCors } from './use-cors.js';
import { useJsonBody } from './use-json-body.js';
import { useNotFound, useProblemErrors } from './use-problem-errors.js';
import { useRequestLogging } from './use-request-logging.js';

export const GRAPHQL_PATH = '/graphql';
export const REST_BASE_PATH = '/api/v1';
const API_VERSION = '1.0.0';

export interface AppOptions {
  logger?: Logger;
  /** Replaces the credential strategies (tests); default: JWT (API keys plug in here). */
  resolveActor?: ActorResolver;
  /** Replaces the REST route table (tests with their own schema); default: `restRoutes`. */
  restRoutes?: RestRoutes;
}

export interface AppHandle {
  app: Express;
  /** Stops the GraphQL server (call after the HTTP server stopped accepting). */
  stop(): Promise<void>;
}

/**
 * The HTTP application: small pieces composed in one ordered list. Both
 * surfaces share the context factory (credentials -> actor) and the error
 * catalogue.
 */
export async function createApp(config: AppConfig, schema: GraphQLSchema, options: AppOptions = {}): Promise<AppHandle> {
  const logger = options.logger ?? createLogger(config);
  const development = config.nodeEnv === 'development';
  // The credential strategies, tried in order. API keys plug in here: an
  // `apiKeyStrategy()` that recognises secrets with API_KEY_PREFIX (`ak_`),
  // as `Bearer` or `X-API-Key` (see src/auth/credentials.ts).
  const resolveActor = options.resolveActor ?? createActorResolver([jwtStrategy(config.jwt)]);
  const createContext = createRequestContextFactory(config, resolveActor, logger);
  const apollo = await createApolloMount({
    schema,
    createContext,
    production: config.nodeEnv === 'production',
    exposeErrorDetails: development,
    logger,
  });

  const app = express();
  app.disable('x-powered-by');
  const pipeline = [
    useRequestLogging({ logger }),
    useCors({ origins: config.corsOrigins }),
    useHealth(),
    useDocs({ basePath: REST_BASE_PATH, openApiPath: `${REST_BASE_PATH}${OPENAPI_ENDPOINT}` }),
    useJsonBody({ limitBytes: config.bodyLimit.bytes }),
    express.Router().use(GRAPHQL_PATH, apollo.handler),
    useSofaRest({
      schema,
      basePath: REST_BASE_PATH,
      routes: options.restRoutes ?? restRoutes,
      createContext,
      openAPI: openApiOptions({ version: API_VERSION }),
      logger,
      exposeErrorDetails: development,
    }),
    useNotFound(),
    useProblemErrors({ bodyLimitLabel: config.bodyLimit.label, exposeDetails: development, logger, graphqlPath: GRAPHQL_PATH }),
  ];
  for (const piece of pipeline) app.use(piece);
  return { app, stop: () => apollo.stop() };
}
