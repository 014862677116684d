import type { RequestHandler } from 'express';
import {
  execute as graphqlExecute,
  getNamedType,
  isInputObjectType,
  isInputType,
  Kind,
  typeFromAST,
  valueFromASTUntyped,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { useSofa } from 'sofa-api';
import { errors, PROBLEM_CONTENT_TYPE, problemHeaders, settleError, toProblem, type AppError } from '../errors/index.js';
import { createDocumentGuard } from '../graphql/limits.js';
import type { Logger } from '../logger.js';
import { describeRestInputs } from './openapi.js';
import { currentScope, requestScope } from './request-scope.js';
import type { RestRoutes } from './rest-routes.js';
import type { SofaConfig, SofaResponse } from './sofa-types.js';

export interface SofaRestOptions {
  schema: GraphQLSchema;
  basePath: string;
  routes: RestRoutes;
  openAPI: SofaConfig['openAPI'];
  logger: Logger;
  exposeErrorDetails: boolean;
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
  const { schema, basePath, routes, openAPI, logger, exposeErrorDetails } = options;

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
      const problem = toProblem(error, { requestId: scope.requestId, exposeDetails: exposeErrorDetails });
      const response = new Response(JSON.stringify(problem), { status: error.status, headers: problemHeaders(error) });
      return response as unknown as SofaResponse;
    },
  });

  describeRestInputs(router.openAPIDocument, schema, routes);

  return async (req, res, next) => {
    if (!req.path.startsWith(`${basePath}/`) || isWebhookPath(req.path, basePath)) return next();
    try {
      const response: Response | undefined = await router.fetch(toFetchRequest(req.method, req.originalUrl), { req, res });
      // No such route (fets answers nothing, or a bare 404): the app's 404 problem.
      if (!response) return next();
      const isOurAnswer = response.status !== 404 || response.headers.get('content-type')?.startsWith(PROBLEM_CONTENT_TYPE);
      if (!isOurAnswer) return next();
      res.status(response.status);
      response.headers.forEach((value, name) => res.setHeader(name, value));
      res.end(Buffer.from(await response.arrayBuffer()));
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
export function createRestExecute(schema: GraphQLSchema): (args: ExecutionArgs) => Promise<ExecutionResult> {
  const guard = createDocumentGuard(schema);
  const compiled = new WeakMap<DocumentNode, CompiledRoute | null>();
  return async (args) => {
    const restVariables = requestScope.getStore()?.restVariables ?? {};
    guard.assertWithinLimits(args.document);
    const variableValues = { ...args.variableValues, ...restVariables };
    let route = compiled.get(args.document);
    if (route === undefined) compiled.set(args.document, (route = compileRoute(schema, args)));
    if (!route) return graphqlExecute({ ...args, variableValues });
    return route.query.query(args.rootValue, args.contextValue, { ...route.defaults, ...definedOnly(variableValues) });
  };
}

/**
 * A route's document compiled by graphql-jit once (SOFA keeps one document
 * per route): graphql-js's executor re-reads the document on every call,
 * which was the larger part of a list page's GraphQL time. graphql-jit does
 * not fill a variable's default value when the variable is absent (graphql-js
 * does), so the defaults are read here and passed under the given values.
 * It does not fill an input object's field defaults either, and those are
 * not ours to fill without coercing the whole value: a document whose
 * variables hold such a field stays with graphql-js. null when graphql-js
 * runs the document.
 */
interface CompiledRoute {
  query: CompiledQuery;
  defaults: Record<string, unknown>;
}

function compileRoute(schema: GraphQLSchema, args: ExecutionArgs): CompiledRoute | null {
  const defaults: Record<string, unknown> = {};
  for (const definition of args.document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      const type = typeFromAST(schema, variable.type);
      if (!type || !isInputType(type) || hasFieldDefaults(type)) return null;
      // As a client would send it (an enum by its name): graphql-jit coerces the variables itself.
      if (variable.defaultValue) defaults[variable.variable.name.value] = valueFromASTUntyped(variable.defaultValue);
    }
  }
  const query = compileQuery(schema, args.document, args.operationName ?? undefined);
  return isCompiledQuery(query) ? { query, defaults } : null;
}

/** Whether an input type holds, at any depth, an input object field with a default value. */
function hasFieldDefaults(type: GraphQLInputType, seen = new Set<GraphQLInputType>()): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || seen.has(named)) return false;
  seen.add(named);
  return Object.values(named.getFields()).some((field) => field.defaultValue !== undefined || hasFieldDefaults(field.type, seen));
}

/** Values given as undefined are absent, as graphql-js takes them. */
function definedOnly(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
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
 * What SOFA routes on: method, path and query string. No body (the edge read
 * it) and no headers: neither SOFA's handlers nor its router read them (the
 * context comes from the request scope), and copying them into a fetch
 * Headers object was about 1.5% of a REST read's CPU. The origin is
 * fixed: SOFA needs none, and one built from the client's Host header fails
 * on a malformed one.
 */
function toFetchRequest(method: string, originalUrl: string): Request {
  return new Request(new URL(originalUrl, 'http://localhost'), { method });
}
