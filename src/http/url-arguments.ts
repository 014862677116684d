import {
  getNullableType,
  GraphQLBoolean,
  isListType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLSchema,
} from 'graphql';
import type { FieldError } from '../errors.js';
import type { RestRoutes } from './rest-routes.js';

interface RouteArguments {
  method: string;
  pattern: URLPattern;
  args: readonly GraphQLArgument[];
}

export type UrlArgumentCheck = (method: string, path: string, query: Record<string, unknown>) => FieldError[];

/**
 * SOFA turns path and query strings into scalars with the scalar's
 * `serialize` and, when that fails, answers 400 without saying which
 * argument. This check runs first with the same conversion, so the 400 names
 * the field (rule `type`), as a GraphQL variable error does.
 */
export function createUrlArgumentCheck(schema: GraphQLSchema, routes: RestRoutes, basePath: string): UrlArgumentCheck {
  const table: RouteArguments[] = [];
  for (const [operation, route] of Object.entries(routes)) {
    const [typeName, fieldName] = operation.split('.');
    const rootType = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const field = rootType?.getFields()[fieldName];
    if (!field || !route.path) continue;
    table.push({ method: route.method ?? 'GET', pattern: new URLPattern({ pathname: `${basePath}${route.path}` }), args: field.args });
  }

  return (method, path, query) => {
    const route = table.find((candidate) => candidate.method === method && candidate.pattern.test({ pathname: path }));
    if (!route) return [];
    const params = route.pattern.exec({ pathname: path })?.pathname.groups ?? {};
    const problems: FieldError[] = [];
    for (const arg of route.args) {
      const raw = arg.name in params ? decodeSafely(params[arg.name]) : query[arg.name];
      const type = getNullableType(arg.type);
      // SOFA reads booleans itself ('true' or not); other scalars go through serialize.
      if (typeof raw !== 'string' || isListType(type) || !isScalarType(type) || type === GraphQLBoolean) continue;
      try {
        type.serialize(raw);
      } catch (err) {
        problems.push({ field: arg.name, rule: 'type', message: `${arg.name}: ${(err as Error).message}` });
      }
    }
    return problems;
  };
}

function decodeSafely(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
