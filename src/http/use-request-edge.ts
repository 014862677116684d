import type { Request, RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import { errors } from '../errors/index.js';
import { calledOperations } from '../graphql/index.js';
import type { Logger } from '../logger.js';
import { withAnswerBudget } from '../shared/index.js';
import type { RestArgumentReader } from './rest-arguments.js';
import { rememberScope, requestScope, type RequestScope } from './request-scope.js';

/** What the request edge offers the context factory besides the request. */
export interface EdgeScope {
  requestId: string;
  logger: Logger;
  /** Sets a response header now (e.g. the rate-limit fields of an API key). */
  setHeader(name: string, value: string): void;
  /** Runs once the response is done, with its status (e.g. to log an API key's use). */
  afterResponse(listener: (status: number) => void): void;
}

/** Builds the resolver context of one request (credential -> caller); see src/auth/request-context.ts. */
export type RequestContextFactory<TContext> = (req: Request, scope: EdgeScope) => Promise<TContext>;

/**
 * A check of the caller that runs before any argument is read (auth/'s
 * credential-first.ts: no usable credential, no operation but the open
 * ones). `called` names the operations the request calls (`Query.apiKey`):
 * asked only when needed (it parses a GraphQL document); undefined when
 * they cannot be told (no route matches, the document does not parse).
 * Throws its refusal.
 */
export type CallerAdmission<TContext> = (context: TContext, called: () => readonly string[] | undefined) => void;

export interface RequestEdgeOptions<TContext> {
  /** The served schema: which root fields of a GraphQL document are operations. */
  schema: GraphQLSchema;
  graphqlPath: string;
  restBasePath: string;
  createContext: RequestContextFactory<TContext>;
  readRestArguments: RestArgumentReader;
  /** Runs between the context and the arguments; none: every caller reaches the arguments. */
  admitCaller?: CallerAdmission<TContext>;
  /** The bytes of records one answer may carry, shared by every list page it holds (src/shared/answer-budget.ts). */
  pageByteBudget: number;
  /** Paths under the REST base that need no context (public documents). */
  publicPaths?: readonly string[];
  /** Used when pino-http gave the request no logger of its own. */
  logger: Logger;
}

/**
 * The one entrance both surfaces pass through, in the same order, before
 * Apollo or SOFA see the request: the credential and caller (the context,
 * whose factory applies the credential's own limits), then the admission of
 * that caller to the operations called (a refused caller learns nothing of
 * their arguments), then, for REST, the strict reading of the arguments
 * (GraphQL's are read by Apollo, after this). A rule that holds for every
 * API request is added here once. Everything after runs inside the request's scope
 * (request-scope.ts), which is how the context, the checked REST body and
 * the request id reach Apollo, SOFA and the error renderers.
 */
export function useRequestEdge<TContext>(options: RequestEdgeOptions<TContext>): RequestHandler {
  const { schema, graphqlPath, restBasePath, createContext, readRestArguments, admitCaller, logger, pageByteBudget, publicPaths = [] } = options;
  return async (req, res, next) => {
    const isGraphQL = req.path === graphqlPath;
    if (!isGraphQL && (!req.path.startsWith(`${restBasePath}/`) || publicPaths.includes(req.path))) return next();
    try {
      // Apollo answers another method with 405 but a body saying BAD_REQUEST/400: ours says 405
      // throughout. HEAD is run as a GET (below), as for REST.
      if (isGraphQL && !GRAPHQL_METHODS.includes(req.method) && req.method !== 'HEAD') {
        if (req.method !== 'OPTIONS') throw errors.methodNotAllowed(req.method, GRAPHQL_ALLOW);
        res.setHeader('Allow', GRAPHQL_ALLOW.join(', '));
        res.status(204).end();
        return;
      }
      // REST: the route is found once, here; the 405, the admission, the argument reading and SOFA (use-sofa-rest.ts) all use it.
      let restRoute = isGraphQL ? undefined : readRestArguments.match({ method: req.method, path: req.path });
      // A path a route has, with another method, before any credential is read (RFC 9110):
      // HEAD of a GET route is that GET (Node sends no body for a HEAD request); OPTIONS
      // (no CORS preflight: the CORS layer answered those) is 204 naming the methods; any
      // other method is 405 naming them.
      if (!isGraphQL && !restRoute) {
        const allowed = readRestArguments.allowedMethods(req.path);
        if (allowed.length > 0) {
          const methods = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
          if (req.method === 'OPTIONS') {
            res.setHeader('Allow', methods.join(', '));
            res.status(204).end();
            return;
          }
          if (req.method !== 'HEAD' || !allowed.includes('GET')) throw errors.methodNotAllowed(req.method, methods);
          restRoute = readRestArguments.match({ method: 'GET', path: req.path });
        }
      }
      const base = { requestId: String(req.id ?? ''), logger: req.log ?? logger };
      const edge: EdgeScope = {
        ...base,
        setHeader: (name, value) => res.setHeader(name, value),
        afterResponse: (listener) => res.once('close', () => listener(res.statusCode)),
      };
      // The route rides in the scope from here, so that a refusal of the caller is still counted by its route (metrics.ts).
      const scope: RequestScope<TContext> = { ...base, context: await createContext(req, edge), restRoute };
      rememberScope(req, scope);
      // HEAD runs as the GET it matched (SOFA's router and Apollo read the method; Node sends no
      // body for a HEAD request); the context (an API key's usage log) has taken the method as sent.
      if (req.method === 'HEAD' && (isGraphQL || restRoute)) req.method = 'GET';
      admitCaller?.(scope.context, () => (isGraphQL ? graphqlOperations(schema, req) : restRoute && [restRoute.operation]));
      if (!isGraphQL) {
        scope.restVariables = readRestArguments.read(
          { method: req.method, path: req.path, query: req.query as Record<string, unknown>, body: req.body },
          restRoute,
        );
      }
      requestScope.run(scope, () => withAnswerBudget(pageByteBudget, next));
    } catch (err) {
      next(err);
    }
  };
}

/** What /graphql takes (GraphQL over HTTP): GET for queries, POST for any operation. */
const GRAPHQL_METHODS: readonly string[] = ['GET', 'POST'];
const GRAPHQL_ALLOW: readonly string[] = [...GRAPHQL_METHODS, 'HEAD', 'OPTIONS'];

/** The operations of a GraphQL request's document, from the JSON body (POST) or the query string (GET). */
export function graphqlOperations(schema: GraphQLSchema, req: Request): readonly string[] | undefined {
  if (req.method === 'GET') {
    // Read as Apollo reads it (URLSearchParams), not through express's parser, which stops at 1,000 keys.
    const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    const documents = new URLSearchParams(search).getAll('query');
    if (documents.length === 0) return undefined;
    const called = documents.map((document) => calledOperations(schema, document));
    return called.some((operations) => operations === undefined) ? undefined : called.flatMap((operations) => operations!);
  }
  const params = req.body as Record<string, unknown> | undefined;
  // A batch (an array) or a request without a document: Apollo's own 400 says what is wrong.
  if (!params || Array.isArray(params) || typeof params.query !== 'string') return undefined;
  return calledOperations(schema, params.query);
}
