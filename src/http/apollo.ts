import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import type { RequestHandler } from 'express';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { AppError } from '../errors.js';
import type { AppContext } from '../graphql/context.js';
import { isUnexpected, normalizeError, wasLogged } from '../graphql/normalize-error.js';
import { atMostOncePerRequest } from '../graphql/once-per-request.rule.js';
import { assertQueryCost } from '../graphql/query-cost.rule.js';
import type { Logger } from '../logger.js';
import type { RequestContextFactory } from './request-context.js';

export interface ApolloMountOptions {
  schema: GraphQLSchema;
  createContext: RequestContextFactory;
  production: boolean;
  exposeErrorDetails: boolean;
  logger: Logger;
}

export interface ApolloMount {
  handler: RequestHandler;
  stop(): Promise<void>;
}

/**
 * GraphQL at /graphql: Apollo Server 5 with the shared context factory.
 * Errors are rendered from the same AppError as REST: `extensions.code`,
 * `extensions.http.status` (kept; Apollo strips it by default),
 * `extensions.errors` for validation, `extensions.requestId`; the response's
 * HTTP status and headers (WWW-Authenticate, Retry-After) follow the errors.
 */
export async function createApolloMount(options: ApolloMountOptions): Promise<ApolloMount> {
  const { schema, createContext, production, exposeErrorDetails, logger } = options;
  const server = new ApolloServer<AppContext>({
    schema,
    introspection: !production,
    includeStacktraceInErrorResponses: false,
    // Each sign-in costs an Argon2id check: no aliasing many into one request.
    validationRules: [atMostOncePerRequest(['Mutation.login'])],
    // src/index.ts owns shutdown (drain HTTP, then database); Apollo's own handler would re-raise the signal.
    stopOnTerminationSignals: false,
    formatError: (formatted, error) => formatError(formatted, error, { exposeErrorDetails, logger }),
    plugins: [
      production ? ApolloServerPluginLandingPageDisabled() : ApolloServerPluginLandingPageLocalDefault({ embed: true }),
      httpHeadFromErrors(),
      queryCostLimit(),
    ],
  });
  await server.start();
  return {
    handler: expressMiddleware(server, { context: ({ req }) => createContext(req) }),
    stop: () => server.stop(),
  };
}

/** Codes Apollo gives request errors (syntax, validation, bad request): kept, as GraphQL clients expect them. */
const APOLLO_REQUEST_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

function formatError(
  formatted: GraphQLFormattedError,
  thrown: unknown,
  { exposeErrorDetails, logger }: { exposeErrorDetails: boolean; logger: Logger },
): GraphQLFormattedError {
  const apolloCode = formatted.extensions?.code;
  if (typeof apolloCode === 'string' && APOLLO_REQUEST_CODES.has(apolloCode)) {
    return { ...formatted, extensions: { code: apolloCode, http: { status: 400 } } };
  }
  const error = normalizeError(thrown);
  if (isUnexpected(error) && !wasLogged(error)) logger.error({ err: error.originalError ?? thrown }, 'unexpected error');
  return {
    message: error.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: {
      code: error.code,
      http: { status: error.status },
      ...(error.fieldErrors?.length ? { errors: error.fieldErrors } : {}),
      ...(exposeErrorDetails && isUnexpected(error) && error.originalError ? { debug: error.originalError.message } : {}),
    },
  };
}

/**
 * The query cost limit (src/graphql/query-cost.rule.ts). Not among the
 * validationRules: those run before the variables are known, and a list's
 * `limit` usually is one. REST runs fixed operations with bounded limits, so
 * only /graphql needs it.
 */
function queryCostLimit(): ApolloServerPlugin<AppContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          // Apollo always resolves the operation before this hook; the guard is for the type.
          if (operation) assertQueryCost({ schema, document, operation, variables: request.variables });
        },
      };
    },
  };
}

/** Sets the response status to the most severe error's, its headers, and each error's requestId. */
function httpHeadFromErrors(): ApolloServerPlugin<AppContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, errors, contextValue }) {
          if (response.body.kind !== 'single' || !response.body.singleResult.errors?.length) return;
          const result = response.body.singleResult;
          result.errors = result.errors!.map((error) => ({
            ...error,
            extensions: { ...error.extensions, requestId: contextValue.requestId },
          }));
          const statuses = result.errors.map((error) => (error.extensions?.http as { status?: number } | undefined)?.status ?? 500);
          response.http.status = Math.max(...statuses);
          for (const original of errors ?? []) {
            const error = original instanceof AppError ? original : normalizeError(original);
            for (const [name, value] of Object.entries(error.headers)) response.http.headers.set(name.toLowerCase(), value);
          }
        },
      };
    },
  };
}
