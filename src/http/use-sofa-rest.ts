import type { RequestHandler } from 'express';
import { isObjectType, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type execute as graphqlExecute, type GraphQLSchema } from 'graphql';
import { useSofa } from 'sofa-api';
import { errors, PROBLEM_CONTENT_TYPE, problemHeaders, settleError, toProblem, type AppError } from '../errors/index.js';
import { createCompiledExecute, createDocumentGuard, type Execute, type JsonSchema } from '../graphql/index.js';
import type { Logger } from '../logger.js';
import { REST_SWITCH_EXTENSION } from '../shared/index.js';
import { describeRestInputs, OPENAPI_ENDPOINT, renderOpenApiDocument } from './openapi.js';
import { describeConventions } from './openapi-conventions.js';
import { currentScope, requestScope } from './request-scope.js';
import type { RestRouteMatch } from './rest-arguments.js';
import { routeMethod, type RestRoutes } from './rest-routes.js';
import type { SofaConfig, SofaResponse } from './sofa-types.js';

export interface SofaRestOptions {
  schema: GraphQLSchema;
  basePath: string;
  routes: RestRoutes;
  openAPI: SofaConfig['openAPI'];
  logger: Logger;
  exposeErrorDetails: boolean;
  /** Production: no "Did you mean" (errors/suggestions.ts). */
  hideSuggestions: boolean;
  /** The JSON Schemas that are the OpenAPI document's components (openapi.ts's buildRestJsonSchemas). */
  jsonSchemas: ReadonlyMap<string, JsonSchema>;
  /** The creates that take an Idempotency-Key (described in the OpenAPI document). */
  idempotentCreates?: ReadonlySet<string>;
}

/**
 * The REST surface: SOFA turns each GraphQL operation into a route under
 * `basePath` and runs it with `execute` itself. The request edge has already
 * made the context and read the JSON body strictly (rest-arguments.ts), so
 * SOFA gets a body-less request (it takes path and query values from the
 * URL) and `execute` adds the body's fields as variables. Errors leave
 * through `settleError` + the problem renderer. Paths SOFA does not know
 * (and its subscription webhooks, which we do not offer) fall through to
 * the app's 404.
 */
export function useSofaRest(options: SofaRestOptions): RequestHandler {
  const { schema, basePath, routes, openAPI, logger, exposeErrorDetails, hideSuggestions } = options;

  const router = useSofa({
    schema,
    basePath,
    routes,
    openAPI,
    swaggerUI: { endpoint: false },
    context: () => requestScope.getStore()?.context as object,
    execute: createRestExecute(schema) as typeof graphqlExecute,
    errorHandler: (thrownErrors) => {
      const scope = currentScope(logger);
      const error = pickError(thrownErrors.map((thrown) => settleError(thrown, scope)));
      const problem = toProblem(error, { requestId: scope.requestId, exposeDetails: exposeErrorDetails, hideSuggestions });
      const response = new Response(JSON.stringify(problem), { status: error.status, headers: problemHeaders(error) });
      return response as unknown as SofaResponse;
    },
  });

  describeRestInputs(router.openAPIDocument, schema, routes, options.jsonSchemas);
  describeConventions(router.openAPIDocument, routes, options.idempotentCreates ?? new Set());
  const handlers = sofaRouteHandlers(router, routes);
  // Rendered once, as schema/openapi.json is written: the same bytes (the document is complete by now).
  const openApiPath = `${basePath}${OPENAPI_ENDPOINT}`;
  const openApiText = renderOpenApiDocument(router.openAPIDocument);

  return async (req, res, next) => {
    if (!req.path.startsWith(`${basePath}/`) || isWebhookPath(req.path, basePath)) return next();
    if (req.path === openApiPath && (req.method === 'GET' || req.method === 'HEAD')) {
      res.status(200).setHeader('content-type', 'application/json; charset=utf-8');
      return void res.end(openApiText);
    }
    try {
      const route = requestScope.getStore()?.restRoute;
      const handler = route?.plain ? handlers.get(route.operation) : undefined;
      const response: Response | undefined = handler
        ? await handler(sofaRequest(req.method, req.originalUrl, route!.params), { req, res })
        : await router.fetch(routedUrl(req.originalUrl), { method: req.method }, { req, res });
      // No such route (fets answers nothing, or a bare 404): the app's 404 problem.
      if (!response) return next();
      const isOurAnswer = response.status !== 404 || response.headers.get('content-type')?.startsWith(PROBLEM_CONTENT_TYPE);
      if (!isOurAnswer) return next();
      res.status(response.status);
      response.headers.forEach((value, name) => res.setHeader(name, value));
      // Every answer here is JSON text (SOFA's Response.json, the problem renderer): handed to Node
      // as that string, it is encoded once and leaves with the head in one write, where
      // Buffer.from(arrayBuffer()) encoded it, then copied it byte by byte.
      res.end(await response.text());
    } catch (err) {
      next(err);
    }
  };
}

/**
 * SOFA's `execute`: the body's fields join the variables, and the document
 * meets the limits /graphql applies when parsing and validating
 * (src/graphql/limits.ts), since SOFA runs it without Apollo; checked once
 * per document (SOFA builds one per route and reuses it). A refusal throws a
 * catalogue error, which SOFA hands to the errorHandler. The cost limit is
 * /graphql's alone: a route's document is fixed and its `limit` at most 100.
 */
export function createRestExecute(schema: GraphQLSchema): Execute {
  const guard = createDocumentGuard(schema);
  // Compiled by graphql-jit where it answers as graphql-js (src/graphql/compiled-execution.ts), on a route
  // document's second run like any other: one graphql-js run per route, and routes never called are never compiled.
  const execute = createCompiledExecute(schema);
  const switchedFields = createSwitchedFields(schema);
  return async (args) => {
    const restVariables = requestScope.getStore()?.restVariables ?? {};
    guard.assertWithinLimits(args.document);
    const variableValues = { ...args.variableValues, ...restVariables };
    return execute({ ...args, document: switchedFields(args.document, variableValues), variableValues });
  };
}

/**
 * A route's document without the fields its switches leave out
 * (AnsweredOverRestWhen: `totalCount` unless includeTotal=true, `wouldRevoke`
 * unless dryRun=true): SOFA selects every field of an answer. One document
 * per route document and set of switches on, so compiled runs are reused.
 */
function createSwitchedFields(schema: GraphQLSchema): (document: DocumentNode, variables: Record<string, unknown>) => DocumentNode {
  const switches = restSwitchesOf(schema);
  const documents = new WeakMap<DocumentNode, Map<string, DocumentNode>>();
  return (document, variables) => {
    if (switches.size === 0) return document;
    const on = [...switches].filter((name) => variables[name] === true);
    const key = on.join(',');
    let byKey = documents.get(document);
    if (!byKey) documents.set(document, (byKey = new Map()));
    let switched = byKey.get(key);
    if (!switched) {
      const typeInfo = new TypeInfo(schema);
      switched = visit(
        document,
        visitWithTypeInfo(typeInfo, {
          Field: () => {
            const name = typeInfo.getFieldDef()?.extensions?.[REST_SWITCH_EXTENSION];
            return typeof name === 'string' && !on.includes(name) ? null : undefined;
          },
        }),
      );
      byKey.set(key, switched);
    }
    return switched;
  };
}

/** Every argument name some field of the schema is switched by. */
function restSwitchesOf(schema: GraphQLSchema): Set<string> {
  const names = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const name = field.extensions?.[REST_SWITCH_EXTENSION];
      if (typeof name === 'string') names.add(name);
    }
  }
  return names;
}

type SofaRouter = ReturnType<typeof useSofa>;
/** SOFA's handler of one route: what fets' router calls once it has matched the request. */
export type SofaRouteHandler = (request: Request, serverContext: object) => Promise<Response | undefined> | Response | undefined;

/**
 * SOFA's own handler of each operation in the route table, by operation
 * (`Query.mealMenu`), taken from the routes fets keeps for `router.use()`
 * (`__routes`, in fets' typings). The request edge has matched the route
 * already (rest-arguments.ts), so a plain path goes straight to it: fets'
 * router tried each URLPattern of the method in turn, building a URL and a
 * Request on the way, about 10% of a REST read's CPU. Those plugins of fets
 * that run between match and handler (typebox validation) find no TypeBox
 * schema in SOFA's plain JSON schemas and do nothing. An operation missing
 * here (another fets) still goes through router.fetch;
 * test/http/sofa-rest.test.ts (SOFA route handlers by operation) fails if any does.
 */
export function sofaRouteHandlers(router: SofaRouter, routes: RestRoutes): Map<string, SofaRouteHandler> {
  const handlers = new Map<string, SofaRouteHandler>();
  const registered = (router as { __routes?: Array<{ method?: string; path: string; handler: unknown }> }).__routes ?? [];
  for (const [operation, config] of Object.entries(routes)) {
    const method = routeMethod(operation, config);
    const route = registered.find((candidate) => candidate.method === method && candidate.path === config.path);
    if (typeof route?.handler === 'function') handlers.set(operation, route.handler as SofaRouteHandler);
  }
  return handlers;
}

/**
 * The request SOFA's handler reads (sofa-api router.js, useHandler): `body`
 * (none: the edge read it), `url` (its query string: arguments not in the
 * path) and `params`, decoded when read as fets' router decodes them (a bad
 * escape throws there, inside SOFA's try, as it did behind fets).
 */
function sofaRequest(method: string, originalUrl: string, rawParams: RestRouteMatch['params']): Request {
  const params: Record<string, string | undefined> = {};
  for (const [name, raw] of Object.entries(rawParams)) {
    Object.defineProperty(params, name, { enumerable: true, get: () => (raw == null ? raw : decodeURIComponent(raw)) });
  }
  return { method, url: routedUrl(originalUrl).href, params, body: null } as unknown as Request;
}

/** SOFA always adds /webhook routes (subscriptions over webhooks); the service has no subscriptions. */
function isWebhookPath(path: string, basePath: string): boolean {
  return path === `${basePath}/webhook` || path.startsWith(`${basePath}/webhook/`);
}

/** One problem per response: the most severe; several bad inputs merge their field lists. */
function pickError(candidates: AppError[]): AppError {
  const worst = candidates.reduce((a, b) => (b.status > a.status ? b : a));
  const inputErrors = candidates.filter((e) => e.code === 'BAD_USER_INPUT');
  if (worst.code !== 'BAD_USER_INPUT' || inputErrors.length < 2) return worst;
  const fieldErrors = inputErrors.flatMap((e) => e.fieldErrors ?? []);
  const fields = [...new Set(fieldErrors.map((e) => e.field))];
  return errors.badInput(fields.length ? `Invalid value for ${fields.join(', ')}` : worst.message, fieldErrors);
}

/**
 * What SOFA routes on: method (given beside it to router.fetch) and this URL,
 * path and query string. No body (the edge read it) and no headers: neither
 * SOFA's handlers nor its router read them (the context comes from the
 * request scope), and copying them into a fetch Headers object was about
 * 1.5% of a REST read's CPU. Handed to fets as URL and init rather than a
 * built Request: fets then builds its own lighter Request (@whatwg-node's),
 * where Node's undici Request was about 1% of a list page's CPU; its `url`
 * is this URL's href either way. The origin is fixed: SOFA needs none, and
 * one built from the client's Host header fails on a malformed one.
 */
function routedUrl(originalUrl: string): URL {
  return new URL(originalUrl, 'http://localhost');
}
