import {
  getNullableType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { FieldError } from '../errors.js';
import type { RestRoutes } from './rest-routes.js';

interface RouteArguments {
  method: string;
  pattern: URLPattern;
  args: readonly GraphQLArgument[];
}

/** What a REST call carries that SOFA turns into arguments. */
export interface RestArguments {
  method: string;
  path: string;
  query: Record<string, unknown>;
  /** The parsed JSON body (undefined when none). */
  body: unknown;
}

export type RequestArgumentCheck = (request: RestArguments) => FieldError[];

/**
 * SOFA converts every path, query and body value with the scalar's
 * `serialize` before the operation runs and, when that fails, answers 400
 * without saying which argument. `serialize` is also lenient where GraphQL
 * input is strict (`0x10`, `1e2`, ` 5` are integers to it; any word but
 * `true` is `false`). This check runs first: a value GraphQL would refuse as
 * a variable, or that SOFA's conversion would choke on, is a 400 naming the
 * field (rule `type`), as a GraphQL variable error is.
 */
export function createRequestArgumentCheck(schema: GraphQLSchema, routes: RestRoutes, basePath: string): RequestArgumentCheck {
  const table: RouteArguments[] = [];
  for (const [operation, route] of Object.entries(routes)) {
    const [typeName, fieldName] = operation.split('.');
    const rootType = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const field = rootType?.getFields()[fieldName];
    if (!field || !route.path) continue;
    table.push({ method: route.method ?? 'GET', pattern: new URLPattern({ pathname: `${basePath}${route.path}` }), args: field.args });
  }

  return ({ method, path, query, body }) => {
    const route = table.find((candidate) => candidate.method === method && candidate.pattern.test({ pathname: path }));
    if (!route) return [];
    const params = route.pattern.exec({ pathname: path })?.pathname.groups ?? {};
    const bodyFields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const problems: FieldError[] = [];
    for (const arg of route.args) {
      // SOFA's order: path, then a non-empty query value, then the body.
      const fromUrl = arg.name in params ? decodeSafely(params[arg.name]) : query[arg.name];
      const message = Array.isArray(fromUrl)
        ? repeatedProblem(arg.type)
        : typeof fromUrl === 'string' && fromUrl !== ''
          ? textProblem(arg.type, fromUrl)
          : Object.hasOwn(bodyFields, arg.name) && bodyFields[arg.name] != null
            ? conversionProblem(arg.type, bodyFields[arg.name])
            : undefined;
      if (message) problems.push({ field: arg.name, rule: 'type', message: `${arg.name}: ${message}` });
    }
    return problems;
  };
}

const INTEGER_TEXT = /^-?\d+$/;
const FLOAT_TEXT = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `?limit=1&limit=2`: one value is expected unless the argument is a list. */
function repeatedProblem(type: GraphQLInputType): string | undefined {
  return isListType(getNullableType(type)) ? undefined : 'is given more than once; send one value';
}

/** A path or query string, read as GraphQL would read the same value. */
function textProblem(type: GraphQLInputType, text: string): string | undefined {
  const named = getNullableType(type);
  if (isListType(named) || !isScalarType(named)) return undefined;
  if (named === GraphQLBoolean) return text === 'true' || text === 'false' ? undefined : `Boolean cannot represent "${text}": use true or false`;
  if (named === GraphQLInt && !INTEGER_TEXT.test(text)) return `Int cannot represent "${text}": write a decimal integer`;
  if (named === GraphQLFloat && !FLOAT_TEXT.test(text)) return `Float cannot represent "${text}": write a decimal number`;
  return conversionProblem(type, text);
}

/** Whether SOFA's own conversion (sofa-api parse.js) throws on this value, and why. */
function conversionProblem(type: GraphQLInputType, value: unknown): string | undefined {
  if (isNonNullType(type)) return conversionProblem(type.ofType, value);
  if (isListType(type)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const problem = conversionProblem(type.ofType, item);
      if (problem) return problem;
    }
    return undefined;
  }
  try {
    if (isScalarType(type)) type.serialize(type === GraphQLBoolean ? value === 'true' || value === true : value);
    else if (isInputObjectType(type) && !(value && typeof value === 'object')) JSON.parse(value as string);
    return undefined;
  } catch (err) {
    return isInputObjectType(type) ? `${type.name} must be an object` : (err as Error).message;
  }
}

function decodeSafely(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
