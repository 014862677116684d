import { ApolloServer, HeaderMap, type ApolloServerOptionsWithGateway, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import {
  assertOperationInput,
  assertQueryCost,
  createCompiledExecute,
  everyFailingField,
  type Execute,
  GRAPHQL_LIMITS,
  limitedParseOptions,
  limitRules,
} from '../graphql/index.js';
import { errors, normalizeError, settleError, toGraphQLError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import { knownDocuments, type RunnableOperation } from './apollo-known-documents.js';
import { currentScope, requestScope } from './request-scope.js';

export interface ApolloMountOptions {
  schema: GraphQLSchema;
  /** A GraphQL IDE served from local files, linked from the Sandbox page (which needs Apollo's CDN). */
  localIdePath?: string;
  production: boolean;
  exposeErrorDetails: boolean;
  logger: Logger;
  /** Plugins besides the service's own (metrics.ts's count of refused documents). */
  plugins?: readonly ApolloServerPlugin[];
}

export interface ApolloMount {
  handler: RequestHandler;
  stop(): Promise<void>;
}

/**
 * GraphQL at /graphql: Apollo Server 5. The context is the one the request
 * edge made; every error leaves through `settleError` + `toGraphQLError`
 * (src/errors), as REST's leave through the problem renderer; the response's
 * HTTP status and headers (WWW-Authenticate, Retry-After) follow the errors.
 */
export async function createApolloMount(options: ApolloMountOptions): Promise<ApolloMount> {
  const { schema, production, exposeErrorDetails, logger, localIdePath } = options;
  const known = knownDocuments({ schema, execute: createCompiledExecute(schema), assertRunnable });
  const server = new ApolloServer({
    gateway: compiledExecution(schema, known.executor),
    introspection: !production,
    includeStacktraceInErrorResponses: false,
    // The limits of src/graphql/limits.ts, as SOFA applies them: tokens while parsing, then depth,
    // aliases, directives and one password hash per request (@OncePerRequest) while validating.
    parseOptions: limitedParseOptions,
    validationRules: [...limitRules],
    // One operation per HTTP request (the default, stated; refusedBatches() says it more clearly first).
    allowBatchedHttpRequests: false,
    // No automatic persisted queries: a request must carry its document, so the request edge can
    // see what it calls before any argument is read (a hash alone would hide it), and no cache of
    // documents registered by other callers is kept.
    persistedQueries: false,
    // No "Did you mean ...?" in production: it would spell out the schema that introspection keeps hidden.
    hideSchemaDetailsFromClientErrors: production,
    // src/index.ts owns shutdown (drain HTTP, then database); Apollo's own handler would re-raise the signal.
    stopOnTerminationSignals: false,
    formatError: (formatted, thrown) => {
      const scope = currentScope(logger);
      return toGraphQLError(settleError(thrown, scope), {
        requestId: scope.requestId,
        exposeDetails: exposeErrorDetails,
        hideSuggestions: production,
        locations: formatted.locations,
        path: formatted.path,
      });
    },
    plugins: [
      production
        ? ApolloServerPluginLandingPageDisabled()
        : withLocalIdeLink(ApolloServerPluginLandingPageLocalDefault({ embed: true }), localIdePath),
      // No cache hints are declared, and Apollo's automatic cache-control plugin wraps every field's
      // resolver to collect them (7% of a list page's CPU); `Cache-Control: no-store` is ours.
      ApolloServerPluginCacheControlDisabled(),
      // Apollo would report usage to GraphOS when APOLLO_KEY is set; requests answered on the
      // short way (apollo-known-documents.ts) would go unreported, so none is, whatever the environment.
      ApolloServerPluginUsageReportingDisabled(),
      httpHeadFromErrors(),
      // Input first: an argument that cannot be read is the caller's 400 naming it, not a document too large to cost.
      everyFailingField(),
      queryCostLimit(),
      known.plugin,
      ...(options.plugins ?? []),
    ],
  });
  await server.start();
  const apollo = expressHandler(server);
  // Once stopping, every request meets Apollo's own refusal.
  let stopping = false;
  return {
    handler: refusedBatches(async (req, res, next) => {
      if (stopping || !(await known.answer(req, res))) await apollo(req, res, next);
    }),
    stop: () => {
      stopping = true;
      return server.stop();
    },
  };
}

type Gateway = ApolloServerOptionsWithGateway<BaseContext>['gateway'];

/**
 * The schema, executed compiled by graphql-jit where it answers as
 * graphql-js does (src/graphql/compiled-execution.ts, shared with REST).
 * Apollo Server has no executor option; its gateway interface is the way to
 * hand it one. Everything before execution stays Apollo's: parsing,
 * validation (with our rules) and the document store, the plugins'
 * didResolveOperation (input refusal, query cost), the GET-mutation refusal;
 * and after it: variable coercion errors as BAD_USER_INPUT (graphql-js
 * reports those, see compiled-execution.ts), formatError, the HTTP head.
 */
function compiledExecution(schema: GraphQLSchema, execute: Execute): Gateway {
  return {
    // Apollo listens before load() and needs the schema at once; it never changes.
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async load() {
      return {
        executor: (requestContext) =>
          execute({
            schema,
            document: requestContext.document,
            contextValue: requestContext.context,
            variableValues: requestContext.request.variables,
            operationName: requestContext.request.operationName,
          }),
      };
    },
    async stop() {},
  };
}

/**
 * /graphql mounted on express through Apollo's integration API
 * (executeHTTPGraphQLRequest), in place of the @as-integrations/express5
 * package, which cost every POST `url.parse` of the URL for a query string
 * only a GET reads, and express's `res.send`, which hashes the answer for an
 * ETag (no use on a POST's answer) and hands node a Buffer, which goes out
 * as a second chunk beside the head; a string goes out in one write with it.
 * Together 4-5% of a single read's CPU in the profile. A GET keeps
 * `res.send`: its ETag and 304 answers stand. The JSON parser (useJsonBody)
 * runs before this mount for every method, so `req.body` is always set.
 */
function expressHandler(server: ApolloServer<BaseContext>): RequestHandler {
  const context = async () => {
    const scope = requestScope.getStore();
    // The request edge runs before this mount; without it there is no caller to speak of.
    if (!scope) throw new Error('GraphQL request outside the request edge');
    return scope.context as object;
  };
  return async (req, res) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const method = req.method.toUpperCase();
    const answer = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method, headers, search: method === 'GET' ? searchOf(req.url) : '', body: req.body },
      context,
    });
    for (const [key, value] of answer.headers) res.setHeader(key, value);
    res.statusCode = answer.status || 200;
    if (answer.body.kind === 'complete') {
      if (method !== 'POST') return void res.send(answer.body.string);
      res.setHeader('content-length', Buffer.byteLength(answer.body.string));
      return void res.end(answer.body.string);
    }
    // Incremental delivery (@defer/@stream), which no schema field here enables; kept as the integration has it.
    for await (const chunk of answer.body.asyncIterator) {
      res.write(chunk);
      (res as { flush?: () => void }).flush?.();
    }
    res.end();
  };
}

/**
 * The query string of a request target, with its `?` (what `url.parse().search`
 * gave the package, without url.parse, which Node 26 warns about at run time:
 * DEP0169). url.parse also escaped characters such as `{` and `"`; Apollo reads
 * the string with URLSearchParams, which decodes the escaped and the raw alike.
 */
function searchOf(target: string): string {
  const mark = target.indexOf('?');
  if (mark < 0) return '';
  const hash = target.indexOf('#', mark);
  return target.slice(mark, hash < 0 ? undefined : hash);
}

/**
 * A JSON array body (several operations in one request) gets a 400 that says
 * what to send instead: every limit and log line is per operation.
 */
function refusedBatches(handler: RequestHandler): RequestHandler {
  return (req, res, next) => (Array.isArray(req.body) ? next(errors.batchRefused()) : handler(req, res, next));
}

/**
 * Apollo Sandbox loads from Apollo's CDN and shows "cannot be loaded, you
 * might be offline" without internet: the landing page gets a banner that
 * points to the IDE served from local files.
 */
function withLocalIdeLink(landingPage: ApolloServerPlugin, idePath: string | undefined): ApolloServerPlugin {
  if (!idePath) return landingPage;
  // The page's own <meta> CSP admits styles by its per-render nonce only (no style attributes).
  const banner = (nonce: string) =>
    `<style nonce="${nonce}">#local-ide{font:14px system-ui,sans-serif;padding:6px 12px;background:#f4f6f8;border-bottom:1px solid #dde}</style>` +
    `<div id="local-ide">Offline, or Sandbox does not load? Use the local GraphiQL IDE at <a href="${idePath}">${idePath}</a>.</div>`;
  const inject = (html: string) => {
    const withBanner = banner(/nonce="?([0-9a-f]+)/.exec(html)?.[1] ?? '');
    return html.includes('<body>') ? html.replace('<body>', `<body>${withBanner}`) : withBanner + html;
  };
  return {
    async serverWillStart(service) {
      const listener = await landingPage.serverWillStart?.(service);
      const render = listener?.renderLandingPage;
      if (!listener || !render) return listener;
      return {
        ...listener,
        async renderLandingPage() {
          const page = await render.call(listener);
          const html = page.html;
          return { html: typeof html === 'string' ? inject(html) : async () => inject(await html()) };
        },
      };
    },
  };
}

/**
 * The query cost limit (src/graphql/query-cost.rule.ts). Not among the
 * validationRules: those run before the variables are known, and a list's
 * `limit` usually is one. /graphql's alone (see GRAPHQL_LIMITS.cost).
 */
function queryCostLimit(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          // Apollo always resolves the operation before this hook; the guard is for the type.
          if (operation) assertQueryCost({ schema, document, operation, variables: request.variables }, GRAPHQL_LIMITS.cost);
        },
      };
    },
  };
}

/**
 * What the plugins check once Apollo has resolved the operation (queryCostLimit,
 * everyFailingField), for a request answered without Apollo (apollo-known-documents.ts).
 */
function assertRunnable({ schema, document, operation, operationName, variables }: RunnableOperation): void {
  assertOperationInput({ schema, document, operationName, variables });
  assertQueryCost({ schema, document, operation, variables }, GRAPHQL_LIMITS.cost);
}

/** Sets the response status to the most severe error's, and the headers the errors imply. */
function httpHeadFromErrors(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, errors: thrown }) {
          if (response.body.kind !== 'single' || !response.body.singleResult.errors?.length) return;
          const statuses = response.body.singleResult.errors.map(
            (error) => (error.extensions?.http as { status?: number } | undefined)?.status ?? 500,
          );
          response.http.status = Math.max(...statuses);
          for (const original of thrown ?? []) {
            for (const [name, value] of Object.entries(normalizeError(original).headers)) response.http.headers.set(name.toLowerCase(), value);
          }
        },
      };
    },
  };
}
