import {
  getNullableType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  isInputObjectType,
  isListType,
  isScalarType,
  OperationTypeNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { errors, type AppError, type FieldError } from '../errors/index.js';
import { type ArgumentReading, argumentRuleProblems, expectation, readArguments, suggestionAmong, unknownFieldProblem, valueRuleOf } from '../graphql/index.js';
import { routeMethod, type RestRoutes } from './rest-routes.js';

interface RouteArguments {
  /** The operation, as the route table names it (`Mutation.createMealMenu`). */
  operation: string;
  method: string;
  pattern: URLPattern;
  /** The same pattern as a RegExp, for paths the URL parser would leave as they are (plainPath). */
  plain: RegExp;
  operationType: OperationTypeNode;
  field: GraphQLField<unknown, unknown>;
  args: readonly GraphQLArgument[];
  /** The arguments the path carries (`:id`). */
  pathArgs: ReadonlySet<string>;
}

/** What a REST call carries that becomes operation arguments. */
export interface RestCall {
  method: string;
  path: string;
  query: Record<string, unknown>;
  /** The parsed JSON body (undefined when none). */
  body: unknown;
}

/** The route a call's method and path match, found once per request by the request edge. */
export interface RestRouteMatch {
  /** The operation it runs (`Mutation.createMealMenu`). */
  readonly operation: string;
  /** The path parameters as the path spells them (percent-escapes not yet decoded). */
  readonly params: Readonly<Record<string, string | undefined>>;
  /**
   * Matched on a plain path (PLAIN_PATH), which the URL parser leaves as it
   * is: SOFA's router would find this same route and these same parameters.
   */
  readonly plain: boolean;
}

export interface RestArgumentReader {
  /** The route of a call, from its method and path alone; undefined when none matches. */
  match(call: Pick<RestCall, 'method' | 'path'>): RestRouteMatch | undefined;
  /** The methods some route takes on this path (none: no route has it). */
  allowedMethods(path: string): string[];
  /**
   * Reads a REST call's arguments as strictly as GraphQL reads variables, and
   * answers the body fields (and empty query values) to pass as variables (a body field may repeat a
   * path parameter only with the same value). Throws one 400 naming every failing field:
   * when a value fails to read, also every rule the other arguments break.
   * `matched` is this reader's own match of the call (found again when not given).
   */
  read(call: RestCall, matched?: RestRouteMatch): Record<string, unknown>;
}

/** A match as this module makes it: the route's argument table rides along, unseen by callers. */
interface Matched extends RestRouteMatch {
  readonly route: RouteArguments;
}

/** Methods whose arguments come from the path and a JSON body (never the query string). */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** A switch: a Boolean argument (`?dryRun=true`), which a body method may also take in its query string (it holds no secret). */
export function isSwitchArgument(arg: { type: GraphQLInputType }): boolean {
  return getNullableType(arg.type) === GraphQLBoolean;
}

/**
 * The REST side of the request edge. SOFA converts every path, query and
 * body value with the scalar's `serialize` and, when that fails, answers 400
 * without saying which argument; `serialize` is also lenient where GraphQL
 * input is strict (`0x10`, `1e2`, ` 5` are integers to it; any word but
 * `true` is `false`). SOFA also drops body fields that are no argument, and
 * would turn `null` into "absent". So the JSON body never reaches SOFA: it
 * is checked here, once, and its values go to graphql-js as variables, as
 * sent, exactly as a GraphQL client's variables would.
 */
export function createRestArgumentReader(schema: GraphQLSchema, routes: RestRoutes, basePath: string): RestArgumentReader {
  const table: RouteArguments[] = [];
  for (const [operation, route] of Object.entries(routes)) {
    const [typeName, fieldName] = operation.split('.');
    const operationType = typeName === 'Query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION;
    const field = schema.getRootType(operationType)?.getFields()[fieldName];
    if (!field || !route.path) continue;
    const pattern = new URLPattern({ pathname: `${basePath}${route.path}` });
    const pathArgs = new Set([...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!));
    table.push({ operation, method: routeMethod(operation, route), pattern, plain: plainPattern(`${basePath}${route.path}`), operationType, field, args: field.args, pathArgs });
  }
  // The order fets' router tries SOFA's routes in, so that both find the same one: a path
  // without parameters first (fets looks those up exactly), then the patterns in the order SOFA
  // registers them (the query type's fields, then the mutation type's).
  const registered = [schema.getQueryType(), schema.getMutationType()].flatMap((type) =>
    type ? Object.keys(type.getFields()).map((field) => `${type === schema.getQueryType() ? 'Query' : 'Mutation'}.${field}`) : [],
  );
  // fets' own test of a path (define-routes.js): a ':' or a '*' makes it a pattern.
  const hasParameters = (route: RouteArguments) => /[:*]/.test(route.pattern.pathname);
  table.sort((a, b) => Number(hasParameters(a)) - Number(hasParameters(b)) || registered.indexOf(a.operation) - registered.indexOf(b.operation));

  const match: RestArgumentReader['match'] = ({ method, path }) => matchRoute(table, method, path);
  const allowedMethods: RestArgumentReader['allowedMethods'] = (path) =>
    [...new Set(table.map((route) => route.method))].filter((method) => matchRoute(table, method, path) !== undefined);
  const read: RestArgumentReader['read'] = ({ method, path, query, body }, given) => {
    const matched = (given as Matched | undefined) ?? matchRoute(table, method, path);
    if (!matched) return {};
    const { route, params } = matched;
    if (body !== undefined && !isJsonObject(body)) throw errors.badInput('The request body must be a JSON object');
    const fields = body ?? {};
    const reading = readRouteValues(route, params, query, fields);
    const misplaced = placeRefusal(route, params, query, fields);
    // The usual call: every value read and sits where it belongs; the resolver checks the rules.
    if (!misplaced && reading.problems.length === 0) {
      // An empty query value read as "" (it passed the argument's rules): SOFA would pass nothing.
      const empty = route.args.filter((arg) => query[arg.name] === '' && !Object.hasOwn(params, arg.name)).map((arg) => [arg.name, '']);
      return Object.fromEntries([...Object.entries(fields).filter(([field]) => !Object.hasOwn(params, field)), ...empty]);
    }
    // Every failing field at once: values that did not read, fields sent where they do not
    // belong, and every rule the other arguments break (they would otherwise surface only
    // once the client has fixed the rest).
    const placeProblems = misplaced?.fieldErrors ?? [];
    for (const problem of placeProblems) reading.failed.add(problem.field);
    const ruleProblems = argumentRuleProblems(route.operationType, route.field, reading.values, reading.failed);
    if (misplaced && reading.problems.length === 0 && ruleProblems.length === 0) throw misplaced;
    throw errors.invalidFields([...reading.problems, ...placeProblems, ...ruleProblems]);
  };
  return { match, allowedMethods, read };
}

/**
 * The route of a call and its path parameters, as SOFA's router (URLPattern
 * over a parsed URL) finds them. URLPattern.exec was about 2% of a REST
 * read's CPU, so a plain path (plainPath) is matched by RegExp; any other
 * goes through URLPattern, whose URL canonicalisation (dot segments,
 * escaping) SOFA's router also applies.
 */
function matchRoute(table: readonly RouteArguments[], method: string, path: string): Matched | undefined {
  const plain = PLAIN_PATH.test(path);
  for (const route of table) {
    if (route.method !== method) continue;
    if (plain) {
      const match = route.plain.exec(path);
      if (match) return { operation: route.operation, route, params: { ...match.groups }, plain };
    } else {
      const match = route.pattern.exec({ pathname: path });
      if (match) return { operation: route.operation, route, params: match.pathname.groups, plain };
    }
  }
  return undefined;
}

/**
 * A path the URL parser leaves unchanged: only unreserved characters,
 * sub-delimiters, ':' '@' and percent escapes, and no segment that is a dot
 * or could decode to one ('.', '..', '%2e').
 */
const PLAIN_PATH = /^(?:\/(?!\.{1,2}(?:\/|$))(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%(?![2][eE])[0-9A-Fa-f]{2})*)+$/;

/** `/a/:id/b` as a RegExp with a named group per parameter (one segment each, as URLPattern's `:name`). */
function plainPattern(pathname: string): RegExp {
  const source = pathname
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `(?<${segment.slice(1)}>[^/]+)` : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * Every argument read as GraphQL reads variables (input-refusal.ts), after
 * the checks of what SOFA's own conversion would mishandle.
 */
function readRouteValues(
  route: RouteArguments,
  params: Record<string, string | undefined>,
  query: Record<string, unknown>,
  body: Record<string, unknown>,
): ArgumentReading {
  const raw: Record<string, unknown> = {};
  const urlProblems: FieldError[] = [];
  // GET and DELETE take no body (placeRefusal says so): its fields are no values.
  const bodyFields = BODY_METHODS.has(route.method) ? body : {};
  // `?email[$ne]=x`, `?limit[]=1`: SOFA's parser (fets) reads brackets as objects and lists; express's does not.
  const bracketed = new Set(Object.keys(query).flatMap((key) => /^([^[\]]+)\[/.exec(key)?.[1] ?? []));
  for (const arg of route.args) {
    if (bracketed.has(arg.name)) {
      urlProblems.push({ field: arg.name, rule: 'type', message: `${arg.name} must be ${expectation(arg.type, valueRuleOf(arg))}: send plain values, without [brackets]` });
      continue;
    }
    // SOFA's order: path, then the query string, then the body (an empty query value counts, see below).
    const fromUrl = Object.hasOwn(params, arg.name) ? decodeSafely(params[arg.name]) : query[arg.name];
    // An empty value is a value, read as GraphQL reads "" (a bare `?flag` is no `true`): SOFA alone would drop it.
    const inUrl = fromUrl !== undefined;
    // Path and query values go through SOFA's own conversion; body values go to graphql-js as they are.
    const message = inUrl ? urlValueProblem(arg, fromUrl) : undefined;
    if (message) urlProblems.push({ field: arg.name, rule: 'type', message });
    else if (inUrl) raw[arg.name] = textValue(arg.type, fromUrl);
    else if (Object.hasOwn(bodyFields, arg.name)) raw[arg.name] = bodyFields[arg.name];
  }
  const checked = new Set(urlProblems.map((problem) => problem.field));
  const reading = readArguments(route.args.filter((arg) => !checked.has(arg.name)), raw);
  for (const field of checked) reading.failed.add(field);
  reading.problems.unshift(...urlProblems);
  return reading;
}

/**
 * Arguments sent where they do not belong: in the query string of a body
 * method, a body of GET or DELETE, a body field that contradicts the path,
 * unknown fields and, on a body method, unknown query parameters.
 */
function placeRefusal(
  route: RouteArguments,
  params: Record<string, string | undefined>,
  query: Record<string, unknown>,
  body: Record<string, unknown>,
): AppError | undefined {
  const argumentNames = new Set(route.args.map((arg) => arg.name));
  const takesBody = BODY_METHODS.has(route.method);
  // A password in a query string ends up in access logs and browser history: body methods take none,
  // but for switches (Boolean arguments such as `?dryRun=true`), which hold no secret.
  const switches = new Set(route.args.filter(isSwitchArgument).map((arg) => arg.name));
  const inQuery = takesBody ? Object.keys(query).filter((name) => argumentNames.has(name) && !switches.has(name)) : [];
  if (inQuery.length > 0) {
    const place = (field: string) => (route.pathArgs.has(field) ? 'the path' : 'the JSON body');
    return errors.badInput(
      `Send ${inQuery.map((field) => `${field} in ${place(field)}`).join(', ')}, not in the query string`,
      inQuery.map((field) =>
        route.pathArgs.has(field)
          ? { field, rule: 'inPath', message: `${field} belongs in the path` }
          : { field, rule: 'inBody', message: `${field} belongs in the JSON body` },
      ),
    );
  }
  // A body (or, for GET and DELETE, a query string) may repeat a path parameter (a client
  // sending the whole record), never contradict it: the path's value is the one that counts.
  const [repeated, where] = takesBody ? [body, 'the body'] : [query, 'the query string'];
  const contradicting = [...route.pathArgs].filter((field) => Object.hasOwn(repeated, field) && !sameAsPath(repeated[field], decodeSafely(params[field])));
  if (contradicting.length > 0) {
    return errors.badInput(
      `${contradicting.join(', ')} in ${where} differ${contradicting.length > 1 ? '' : 's'} from the path`,
      contradicting.map((field) => ({ field, rule: 'matchesPath', message: `${field} in ${where} must be the ${field} of the path, or absent` })),
    );
  }
  // GET and DELETE take their arguments from the path and query string, as the
  // OpenAPI document says; a body would add arguments it does not describe.
  const inBody = takesBody ? [] : Object.keys(body);
  if (inBody.length > 0) {
    return errors.badInput(
      `This route takes no request body: send ${inBody.join(', ')} in the path or query string`,
      inBody.map((field) => ({ field, rule: 'inUrl', message: `${field} belongs in the path or query string` })),
    );
  }
  // A switch the operation does not have (`?dryRun=true` on a route without a dry run) would
  // otherwise be dropped and the write done for real.
  const unknownInQuery = takesBody ? Object.keys(query).filter((name) => !argumentNames.has(name)) : [];
  if (unknownInQuery.length > 0) {
    // Only switches belong in a body method's query string: only they are suggested there.
    return errors.badInput(
      `Unknown query parameter${unknownInQuery.length > 1 ? 's' : ''}: ${unknownInQuery.join(', ')}`,
      unknownInQuery.map((field) => ({ field, rule: 'unknown', message: `${field} is not a parameter of this operation.${suggestionAmong(field, [...switches])}` })),
    );
  }
  // As graphql-js says an unknown argument, with its suggestion among the operation's (production leaves it out).
  const unknownFields = Object.keys(body).filter((field) => !argumentNames.has(field));
  if (unknownFields.length > 0) {
    return errors.badInput(
      `Unknown field${unknownFields.length > 1 ? 's' : ''}: ${unknownFields.join(', ')}`,
      unknownFields.map((field) => unknownFieldProblem('', field, suggestionAmong(field, [...argumentNames].filter((name) => !route.pathArgs.has(name))))),
    );
  }
  return undefined;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const INTEGER_TEXT = /^-?\d+$/;
const FLOAT_TEXT = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * What is wrong with a path or query value, in the words GraphQL's own
 * refusals use (coercion-problems.ts), never repeating the value: `?limit=1&limit=2`
 * (one value unless a list), `?email[$ne]=x` (an object from brackets), a text
 * the type does not read as GraphQL would.
 */
function urlValueProblem(arg: GraphQLArgument, value: unknown): string | undefined {
  const listed = isListType(getNullableType(arg.type));
  const must = `${arg.name} must be ${expectation(arg.type, valueRuleOf(arg))}`;
  if (Array.isArray(value)) {
    if (!listed) return `${must}: send it once, without []`;
    return value.some((item) => typeof item !== 'string' || textProblem(arg.type, item)) ? must : undefined;
  }
  if (typeof value !== 'string') return `${must}: send plain values, without [brackets]`;
  return textProblem(arg.type, value) ? must : undefined;
}

/** Whether a path or query text fails to read as GraphQL would read the same value. */
function textProblem(type: GraphQLInputType, text: string): boolean {
  const named = getNullableType(type);
  if (isListType(named)) return textProblem(named.ofType, text);
  if (!isScalarType(named)) return conversionFails(type, text);
  if (named === GraphQLBoolean) return text !== 'true' && text !== 'false';
  if (named === GraphQLInt && !INTEGER_TEXT.test(text)) return true;
  if (named === GraphQLFloat && !FLOAT_TEXT.test(text)) return true;
  return conversionFails(type, text);
}

/** Whether SOFA's own conversion (sofa-api parse.js) throws on this value. */
function conversionFails(type: GraphQLInputType, value: unknown): boolean {
  const named = getNullableType(type);
  if (isListType(named)) return conversionFails(named.ofType, value);
  try {
    if (isScalarType(named)) named.serialize(named === GraphQLBoolean ? value === 'true' || value === true : value);
    else if (isInputObjectType(named) && !(value && typeof value === 'object')) JSON.parse(value as string);
    return false;
  } catch {
    return true;
  }
}

/** A body value that repeats a path parameter: the same text (`7` and "7" for an integer). */
function sameAsPath(value: unknown, fromPath: string | undefined): boolean {
  return (typeof value === 'string' || typeof value === 'number') && String(value) === fromPath;
}

/** A path or query text as the JSON value a GraphQL client would send (it passed textProblem). */
function textValue(type: GraphQLInputType, text: unknown): unknown {
  const named = getNullableType(type);
  if (Array.isArray(text)) return text.map((item) => textValue(isListType(named) ? named.ofType : type, item));
  if (isListType(named)) return [textValue(named.ofType, text)];
  if (named === GraphQLInt || named === GraphQLFloat) return Number(text);
  if (named === GraphQLBoolean) return text === 'true';
  return text;
}

function decodeSafely(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
