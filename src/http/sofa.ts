import type { Request as ExpressRequest, RequestHandler } from 'express';
import { execute as graphqlExecute, Kind, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { useSofa } from 'sofa-api';
import { errors, type AppError } from '../errors.js';
import { isUnexpected, normalizeError, wasLogged } from '../graphql/normalize-error.js';
import type { Logger } from '../logger.js';
import { describeRestInputs } from './openapi.js';
import { PROBLEM_CONTENT_TYPE, problemHeaders, sendProblem, toProblem } from './problem.js';
import { createRequestArgumentCheck } from './request-arguments.js';
import type { RequestContextFactory } from './request-context.js';
import { requestScope } from './request-scope.js';
import type { RestRoutes } from './rest-routes.js';
import type { SofaConfig, SofaResponse } from './sofa-types.js';

export interface SofaRestOptions {
  schema: GraphQLSchema;
  basePath: string;
  routes: RestRoutes;
  createContext: RequestContextFactory;
  openAPI: SofaConfig['openAPI'];
  logger: Logger;
  exposeErrorDetails: boolean;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** What a REST call sent, by its context (SOFA's execute only sees the context). */
interface RestInput {
  body: unknown;
  /** Names given as path parameters (SOFA reads those first). */
  pathArguments: ReadonlySet<string>;
  /** Names given in the query string (SOFA reads those before the body). */
  queryArguments: ReadonlySet<string>;
  /** POST, PUT, PATCH: arguments come from the path and the body only. */
  takesBody: boolean;
}
const inputsByContext = new WeakMap<object, RestInput>();

/**
 * The REST surface: SOFA turns each GraphQL operation into a route under
 * `basePath` and runs it with `execute` itself, so the context comes from the
 * shared factory and errors go through the `errorHandler` below as
 * problem+json. Mounted as a plain express handler; paths SOFA does not know
 * (and its subscription webhooks, which we do not offer) fall through to the
 * app's 404.
 */
export function useSofaRest(options: SofaRestOptions): RequestHandler {
  const { schema, basePath, routes, createContext, openAPI, logger, exposeErrorDetails } = options;

  const router = useSofa({
    schema,
    basePath,
    routes,
    openAPI,
    swaggerUI: { endpoint: false },
    async context(serverContext) {
      const { req, request } = serverContext as unknown as { req: ExpressRequest; request: { params?: object } };
      const context = await createContext(req);
      inputsByContext.set(context, {
        body: req.body,
        pathArguments: new Set(Object.keys(request.params ?? {})),
        queryArguments: new Set(Object.keys(req.query ?? {})),
        takesBody: BODY_METHODS.has(req.method),
      });
      return context;
    },
    execute: ((args) => {
      const operation = args.document.definitions.find(
        (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
      );
      const variableNames = new Set(operation?.variableDefinitions?.map((v) => v.variable.name.value) ?? []);
      const input = inputsByContext.get(args.contextValue as object);
      return graphqlExecute({ ...args, variableValues: withBodyChecked(input, variableNames, args.variableValues) });
    }) as typeof graphqlExecute,
    errorHandler: (thrownErrors) => {
      const error = pickError(thrownErrors.map(normalizeError));
      const requestId = requestScope.getStore()?.requestId ?? '';
      if (isUnexpected(error) && !wasLogged(error)) {
        logger.error({ err: error.originalError ?? error, requestId }, 'unexpected error');
      }
      const problem = toProblem(error, { requestId, exposeDetails: exposeErrorDetails });
      const response = new Response(JSON.stringify(problem), { status: error.status, headers: problemHeaders(error) });
      return response as unknown as SofaResponse;
    },
  });

  describeRestInputs(router.openAPIDocument, schema, routes);
  const checkArguments = createRequestArgumentCheck(schema, routes, basePath);

  return async (req, res, next) => {
    if (!req.path.startsWith(`${basePath}/`) || isWebhookPath(req.path, basePath)) return next();
    try {
      const argumentProblems = checkArguments({
        method: req.method,
        path: req.path,
        query: req.query as Record<string, unknown>,
        body: req.body,
      });
      if (argumentProblems.length > 0) {
        const fields = argumentProblems.map((problem) => problem.field).join(', ');
        sendProblem(res, errors.badInput(`Invalid value for ${fields}`, argumentProblems), { requestId: String(req.id) });
        return;
      }
      const request = toFetchRequest(req);
      const response: Response | undefined = await requestScope.run({ requestId: String(req.id) }, () =>
        router.fetch(request, { req }),
      );
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

/** SOFA always adds /webhook routes (subscriptions over webhooks); the service has no subscriptions. */
function isWebhookPath(path: string, basePath: string): boolean {
  return path === `${basePath}/webhook` || path.startsWith(`${basePath}/webhook/`);
}

/**
 * SOFA silently drops body fields that are no argument of the operation:
 * refuse them (400 naming each). SOFA also runs body values through the
 * scalars' `serialize` (42 becomes "42") and turns `null` into "absent":
 * pass the JSON values as sent instead, so graphql-js coerces a REST body
 * exactly as it coerces GraphQL variables (and `null` clears a field).
 */
function withBodyChecked(
  input: RestInput | undefined,
  variableNames: ReadonlySet<string>,
  variableValues: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  const values = { ...(variableValues ?? {}) };
  if (!input) return values;
  // A password in a query string ends up in access logs and browser history: body methods take none.
  const inQuery = input.takesBody ? [...input.queryArguments].filter((name) => variableNames.has(name)) : [];
  if (inQuery.length > 0) {
    throw errors.badInput(
      `Send ${inQuery.join(', ')} in the JSON body, not in the query string`,
      inQuery.map((field) => ({ field, rule: 'inBody', message: `${field} belongs in the JSON body` })),
    );
  }
  const body = input.body;
  if (body === undefined) return values;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.badInput('The request body must be a JSON object');
  }
  // GET and DELETE take their arguments from the path and query string, as the
  // OpenAPI document says; a body would add arguments it does not describe.
  const inBody = input.takesBody ? [] : Object.keys(body);
  if (inBody.length > 0) {
    throw errors.badInput(
      `This route takes no request body: send ${inBody.join(', ')} in the path or query string`,
      inBody.map((field) => ({ field, rule: 'inUrl', message: `${field} belongs in the path or query string` })),
    );
  }
  const unknownFields = Object.keys(body).filter((field) => !variableNames.has(field));
  if (unknownFields.length > 0) {
    throw errors.badInput(
      `Unknown field${unknownFields.length > 1 ? 's' : ''}: ${unknownFields.join(', ')}`,
      unknownFields.map((field) => ({ field, rule: 'unknown', message: `${field} is not a field of this operation` })),
    );
  }
  for (const [field, value] of Object.entries(body)) {
    if (!input.pathArguments.has(field)) values[field] = value;
  }
  return values;
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

/** express has parsed the body already (size limit, JSON errors); SOFA gets it re-serialized. */
function toFetchRequest(req: ExpressRequest): Request {
  const url = new URL(req.originalUrl, `http://${req.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding' || name === 'host') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const hasBody = req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD';
  if (hasBody) headers.set('content-type', 'application/json');
  return new Request(url, { method: req.method, headers, body: hasBody ? JSON.stringify(req.body) : undefined });
}
