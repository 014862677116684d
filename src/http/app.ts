import express, { type Express, type RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { JsonSchema } from '../graphql/index.js';
import type { AppConfig } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { createApolloMount } from './apollo.js';
import { createGraphQLSubscriptions, type GraphQLSubscriptionOptions, type GraphQLSubscriptions } from './graphql-subscriptions.js';
import { useDatabaseGate } from './use-database-gate.js';
import { useDocs } from './use-docs.js';
import { useGraphiQL } from './use-graphiql.js';
import { useIdempotencyKey, type IdempotencyOptions } from './use-idempotency-key.js';
import { recordRoutes, useConditionalRequests } from './use-conditional-requests.js';
import { useHealth } from './use-health.js';
import { trackInFlight } from './in-flight.js';
import { useLandingPage } from './use-landing-page.js';
import { buildRestJsonSchemas, OPENAPI_ENDPOINT, openApiOptions, type OpenApiDescription } from './openapi.js';
import { createRestArgumentReader } from './rest-arguments.js';
import { useRequestEdge, type CallerAdmission, type RequestContextFactory } from './use-request-edge.js';
import type { RestRoutes } from './rest-routes.js';
import { useSecurityHeaders } from './use-security-headers.js';
import { useSofaRest } from './use-sofa-rest.js';
import { useCors } from './use-cors.js';
import { useErrorAnswers, useNotFound } from './use-error-answers.js';
import { useJsonBody } from './use-json-body.js';
import { useRequestLogging } from './use-request-logging.js';
import { useRequestTracing } from './use-tracing.js';
import { countRefusedDocuments, measureApiRequests, useMetricsEndpoint } from './metrics.js';
import type { ServiceMetrics } from '../metrics/index.js';

export const GRAPHQL_PATH = '/graphql';
export const REST_BASE_PATH = '/api/v1';
/** The offline GraphQL IDE; not under /graphql, whose mount also takes /graphql/* paths. */
export const GRAPHIQL_PATH = '/graphiql';

/** How long stop() waits for requests still being handled (within the 30 s shutdown of src/index.ts). */
const IN_FLIGHT_WAIT_MS = 10_000;

export interface AppOptions<TContext> {
  /** The REST route of each operation (every area's table, joined). */
  routes: RestRoutes;
  /** The OpenAPI document's title, description, version and credential kinds. */
  openApi: OpenApiDescription;
  /** The OpenAPI document's components, as the schema lookup answers them; default: built here (buildRestJsonSchemas). */
  jsonSchemas?: ReadonlyMap<string, JsonSchema>;
  /** The resolver context of a request: credential -> caller (src/auth/request-context.ts). */
  createContext: RequestContextFactory<TContext>;
  /** Checks the caller against the operations called before any argument is read (src/auth/credential-first.ts). */
  admitCaller?: CallerAdmission<TContext>;
  /**
   * Whether the database answers now (use-database-gate.ts's databaseConnected):
   * while it does not, API calls are answered 503 at once. None: no such gate
   * (an app over a schema that needs no database, as tests of the HTTP layer build).
   */
  databaseAvailable?: () => boolean;
  /** `Idempotency-Key` on creates (src/http/use-idempotency-key.ts); none: the header is ignored. */
  idempotency?: IdempotencyOptions<TContext>;
  logger?: Logger;
  /**
   * Subscriptions on /graphql over WebSocket and SSE (graphql-subscriptions.ts):
   * their context from the credential in connection_init or the headers. None: not served.
   */
  subscriptions?: Pick<GraphQLSubscriptionOptions<TContext>, 'createContext' | 'checkCredential'>;
  /** This instance's metrics (src/metrics/): API requests are measured and GET /metrics serves them. None: neither. */
  metrics?: ServiceMetrics;
}

export interface AppHandle {
  app: Express;
  /** Waits for requests still being handled, then stops the GraphQL server (call after the HTTP server stopped accepting). */
  stop(): Promise<void>;
  /** The HTTP server's `upgrade` listener (WebSocket subscriptions on /graphql), when subscriptions are served. */
  upgrade?: GraphQLSubscriptions['upgrade'];
  /** Ends every open subscription (shutdown: before waiting for the server's connections to close). */
  endStreams?: () => void;
}

/**
 * The HTTP application: small pieces composed in one ordered list. It knows
 * no area and no credential kind: the schema, the routes and the context
 * factory come from the composition root (src/service.ts).
 */
export async function createApp<TContext>(
  config: AppConfig,
  schema: GraphQLSchema,
  options: AppOptions<TContext>,
): Promise<AppHandle> {
  const logger = options.logger ?? createLogger(config);
  const development = config.nodeEnv === 'development';
  const production = config.nodeEnv === 'production';
  const apollo = await createApolloMount({
    schema,
    localIdePath: GRAPHIQL_PATH,
    production,
    exposeErrorDetails: development,
    logger,
    plugins: options.metrics ? [countRefusedDocuments(options.metrics)] : [],
  });

  const app = express();
  app.disable('x-powered-by');
  // Whose X-Forwarded-For to believe for req.ip (API key allow-lists, usage logs): TRUST_PROXY.
  app.set('trust proxy', config.trustProxy);

  const subscriptions = options.subscriptions
    ? createGraphQLSubscriptions({
        schema,
        path: GRAPHQL_PATH,
        createContext: options.subscriptions.createContext,
        checkCredential: options.subscriptions.checkCredential,
        exposeErrorDetails: development,
        hideSuggestions: production,
        logger,
        maxMessageBytes: config.bodyLimit.bytes,
        maxUnsentResults: config.eventSubscriptions.buffer,
        clientAddress: (req) => clientAddressOf(app, req),
      })
    : undefined;
  const openApiPath = `${REST_BASE_PATH}${OPENAPI_ENDPOINT}`;
  const docsPath = `${REST_BASE_PATH}/docs`;
  const sandboxPath = config.nodeEnv === 'production' ? undefined : GRAPHQL_PATH;
  const pages = express.Router();
  pages.use(
    useHealth(),
    ...(options.metrics ? [useMetricsEndpoint({ metrics: options.metrics, token: config.metrics.token, production })] : []),
    useLandingPage({
      // Apollo Sandbox is off in production: no link to it there.
      graphqlPath: sandboxPath,
      graphiqlPath: GRAPHIQL_PATH,
      docsPath,
      openApiPath,
      healthPath: '/healthz',
      readyPath: '/readyz',
      signInPath: `${REST_BASE_PATH}/auth/login`,
      signOutPath: `${REST_BASE_PATH}/auth/logout`,
    }),
    useDocs({ basePath: REST_BASE_PATH, openApiPath }),
    useGraphiQL({ path: GRAPHIQL_PATH, graphqlPath: GRAPHQL_PATH }),
  );
  const inFlight = trackInFlight((path) => isApiCall(path, docsPath));
  // A span per request while tracing is on (shared/tracing.ts); otherwise each piece is one check.
  const tracing = useRequestTracing({ routes: options.routes, restBasePath: REST_BASE_PATH, graphqlPath: GRAPHQL_PATH });
  const pipeline = [
    // First: the time of an API request includes everything the service does for it, refusals included.
    ...(options.metrics ? [measureApiRequests({ metrics: options.metrics, graphqlPath: GRAPHQL_PATH, restBasePath: REST_BASE_PATH, routes: options.routes })] : []),
    inFlight.track,
    useSecurityHeaders({
      // Every API answer, errors included; the public documents (OpenAPI, Swagger UI) may be cached.
      isCredentialed: (path) => isApiCall(path, docsPath) && path !== openApiPath,
      selfPolicedPagePath: sandboxPath,
    }),
    useRequestLogging({ logger }),
    tracing.start,
    useCors({ origins: config.corsOrigins }),
    // Health and the static pages, before the request edge: they need no credential (the IDE's
    // operations carry the user's own header). No API call can match them, so API calls skip them.
    skipForApiCalls(pages, (path) => isApiCall(path, docsPath)),
    // Before the body and the credential (which may read the database): refused at once while it is away.
    ...(options.databaseAvailable ? [useDatabaseGate(options.databaseAvailable, (path) => isApiCall(path, docsPath) && path !== openApiPath)] : []),
    useJsonBody({ limitBytes: config.bodyLimit.bytes, limitLabel: config.bodyLimit.label }),
    // A subscription over SSE (Accept: text/event-stream): its credential is resolved as a subscription's, re-checked each second.
    ...(subscriptions ? [subscriptions.sse] : []),
    useRequestEdge({
      schema,
      graphqlPath: GRAPHQL_PATH,
      restBasePath: REST_BASE_PATH,
      createContext: options.createContext,
      admitCaller: options.admitCaller,
      pageByteBudget: config.pageByteBudget,
      readRestArguments: createRestArgumentReader(schema, options.routes, REST_BASE_PATH),
      // The OpenAPI document is public and static: no credential is looked at (nor an API key use counted).
      publicPaths: [`${REST_BASE_PATH}${OPENAPI_ENDPOINT}`],
      logger,
    }),
    // The route is known now: the request's span is named for it.
    tracing.route,
    // After the edge (the caller and the REST route are known), before either surface runs the operation.
    ...(options.idempotency ? [useIdempotencyKey(schema, GRAPHQL_PATH, options.idempotency)] : []),
    // REST ETag / If-None-Match on one record's GET, If-Match on its PATCH and DELETE.
    useConditionalRequests(recordRoutes(options.routes)),
    // Exactly /graphql, as the request edge matches it: no other casing, no trailing slash or sub-path.
    express.Router({ caseSensitive: true, strict: true }).all(GRAPHQL_PATH, apollo.handler),
    useSofaRest({
      schema,
      basePath: REST_BASE_PATH,
      routes: options.routes,
      openAPI: openApiOptions(options.openApi),
      jsonSchemas: options.jsonSchemas ?? buildRestJsonSchemas(schema, options.routes),
      idempotentCreates: options.idempotency?.creates,
      logger,
      exposeErrorDetails: development,
      hideSuggestions: production,
    }),
    useNotFound(),
    useErrorAnswers({ exposeDetails: development, hideSuggestions: production, logger, graphqlPath: GRAPHQL_PATH }),
  ];
  for (const piece of pipeline) app.use(piece);
  return {
    app,
    upgrade: subscriptions?.upgrade,
    endStreams: () => subscriptions?.close(),
    async stop() {
      subscriptions?.close();
      // Requests whose clients left are still handled after the server closed: let them finish
      // writing before Apollo stops and the caller closes the database.
      const left = await inFlight.settled(IN_FLIGHT_WAIT_MS);
      if (left > 0) logger.warn({ requests: left }, `stopping with ${left} request(s) still being handled`);
      await apollo.stop();
    },
  };
}

/**
 * A call of the API: /graphql and below, and /api/v1 and below except the
 * Swagger UI pages, compared in lower case because express routes match
 * case-insensitively (/api/v1/DOCS/ is the docs page). The OpenAPI document
 * counts as a call (SOFA serves it).
 */
function isApiCall(path: string, docsPath: string): boolean {
  return isUnder(path, GRAPHQL_PATH) || (isUnder(path, REST_BASE_PATH) && !isUnder(path.toLowerCase(), docsPath));
}

/**
 * `handler` for every request but those `skip` names: each express router a
 * request enters walks its whole stack, and no page route matches an API call.
 */
function skipForApiCalls(handler: RequestHandler, skip: (path: string) => boolean): RequestHandler {
  return (req, res, next) => (skip(req.path) ? next() : handler(req, res, next));
}

/** The path itself or anything below it (`/api/v1`, `/api/v1/x`; not `/api/v10`). */
function isUnder(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

/**
 * A WebSocket upgrade request's client address by express's own rule (req.ip:
 * TRUST_PROXY decides whose X-Forwarded-For is believed), as every HTTP
 * request's: the upgrade never passes through express, so its request is
 * read through express's request prototype.
 */
function clientAddressOf(app: Express, req: IncomingMessage): string {
  const view = Object.create(app.request, { app: { value: app }, headers: { value: req.headers }, socket: { value: req.socket }, connection: { value: req.socket } }) as { ip?: string };
  return view.ip ?? req.socket.remoteAddress ?? '';
}
