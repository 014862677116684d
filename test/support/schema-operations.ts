import { getNamedType, isLeafType, isNonNullType, isObjectType, type GraphQLField, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import type { RestRoutes } from '../../src/http/rest-routes.js';
import type { Operation } from './surfaces.js';

/**
 * Operations read from the served schema and the REST route table, so a test
 * can enumerate every operation and call any of them on both surfaces from
 * its key (`Query.mealMenu`) and its arguments alone.
 */

export type OperationKey = `${'Query' | 'Mutation'}.${string}`;

/** Every Query and Mutation field of the schema, as `Query.<name>` / `Mutation.<name>`. */
export function operationKeys(schema: GraphQLSchema): OperationKey[] {
  return [
    ...Object.keys(schema.getQueryType()?.getFields() ?? {}).map((name): OperationKey => `Query.${name}`),
    ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((name): OperationKey => `Mutation.${name}`),
  ];
}

function fieldOf(schema: GraphQLSchema, key: OperationKey): GraphQLField<unknown, unknown> {
  const [rootName, fieldName] = key.split('.');
  const root = rootName === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const field = root?.getFields()[fieldName];
  if (!field) throw new Error(`The schema has no operation ${key}`);
  return field;
}

/**
 * One operation in both forms, with the same arguments. GraphQL: variables
 * typed as the schema declares each argument, selecting `__typename` only
 * (what is checked here is who may call, not what is answered). REST: the
 * route's path parameters filled from the arguments of the same name, the
 * rest in the query string (GET, DELETE) or the JSON body (POST, PATCH).
 * Arguments that are `undefined` are left out.
 */
export function operationFromSchema(
  schema: GraphQLSchema,
  routes: RestRoutes,
  key: OperationKey,
  args: Record<string, unknown> = {},
): Operation {
  const field = fieldOf(schema, key);
  const given = Object.entries(args).filter(([, value]) => value !== undefined);
  const typeOf = (name: string) => {
    const arg = field.args.find((candidate) => candidate.name === name);
    if (!arg) throw new Error(`${key} has no argument ${name}`);
    return String(arg.type);
  };
  const definitions = given.map(([name]) => `$${name}: ${typeOf(name)}`).join(', ');
  const passed = given.map(([name]) => `${name}: $${name}`).join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  const [rootName] = key.split('.');
  const query = `${rootName.toLowerCase()}${definitions ? `(${definitions})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`;

  const route = routes[key];
  if (!route?.path) throw new Error(`${key} has no REST route`);
  const method = (route.method ?? 'GET') as Operation['rest']['method'];
  const inPath = new Set<string>();
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
    inPath.add(name);
    return encodeURIComponent(String(args[name]));
  });
  const rest = Object.fromEntries(given.filter(([name]) => !inPath.has(name)));
  const carriesBody = method === 'POST' || method === 'PATCH' || method === 'PUT';
  const search = carriesBody ? '' : new URLSearchParams(Object.entries(rest).map(([name, value]) => [name, String(value)])).toString();
  return {
    rest: {
      method,
      path: search ? `${path}?${search}` : path,
      ...(carriesBody && Object.keys(rest).length > 0 ? { body: rest } : {}),
    },
    graphql: { query, variables: Object.fromEntries(given) },
  };
}

/**
 * The type of each argument of `key` as a variable declares it
 * (`{ email: 'String!', ... }`). An argument with a default takes a nullable
 * variable (GraphQL allows it there), so a case may leave it out.
 */
export function argumentTypes(schema: GraphQLSchema, key: OperationKey): Readonly<Record<string, string>> {
  return Object.fromEntries(
    fieldOf(schema, key).args.map((arg) => [arg.name, String(arg.defaultValue !== undefined && isNonNullType(arg.type) ? arg.type.ofType : arg.type)]),
  );
}

/** The status a REST success answers (201 for routes that create). */
export function restSuccessStatus(routes: RestRoutes, key: OperationKey): number {
  return routes[key]?.responseStatus ?? 200;
}

/**
 * Every field of `type`, nested object fields with all of theirs, down to
 * `levels` levels (fields taking required arguments left out), as a selection
 * set: what a client selecting "everything" of a type sends.
 */
export function selectAllFields(type: GraphQLNamedType, levels: number): string {
  if (!isObjectType(type) || levels < 1) return '';
  const fields = Object.values(type.getFields()).filter((field) => !field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined));
  const selected = fields.flatMap((field) => {
    const named = getNamedType(field.type);
    if (isLeafType(named)) return [field.name];
    const inner = selectAllFields(named, levels - 1);
    return inner ? [`${field.name} ${inner}`] : [];
  });
  return `{ ${selected.join(' ')} }`;
}
