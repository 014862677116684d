import { getNullableType, isListType, isNonNullType, isObjectType, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import { buildJsonSchemas, isOpenOperation, mutationInputName, SCHEMA_REF_PREFIX, type JsonSchema } from '../graphql/index.js';
import { BODY_METHODS, isSwitchArgument } from './rest-arguments.js';
import type { RestRoutes } from './rest-routes.js';
import type { SofaConfig } from './sofa-types.js';

/** Where SOFA (fets) serves the OpenAPI document, under the REST base path. */
export const OPENAPI_ENDPOINT = '/openapi.json';

/**
 * The document as served and as committed (schema/openapi.json), the same bytes: object keys
 * sorted at every depth (arrays keep their order), two-space indent, a final newline.
 */
export function renderOpenApiDocument(document: unknown): string {
  return `${JSON.stringify(sortKeys(document), null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/** What the composition root says about the API: its description and its credential kinds. */
export interface OpenApiDescription {
  title: string;
  description: string;
  version: string;
  /** OpenAPI `info.license`: a name, and its SPDX identifier or URL if it has one. */
  license?: { name: string; identifier?: string; url?: string };
  /** OpenAPI security schemes, by name; every route needs one of them unless it is open. */
  securitySchemes: Record<string, object>;
}

/**
 * The OpenAPI document's fixed parts; SOFA adds every route and the schemas
 * of every GraphQL type.
 */
export function openApiOptions({ title, description, version, license, securitySchemes }: OpenApiDescription): NonNullable<SofaConfig['openAPI']> {
  // `security` is valid OpenAPI that fets' type omits; fets copies the document as given.
  const document = {
    endpoint: OPENAPI_ENDPOINT,
    info: { title, description, version, ...(license ? { license } : {}) },
    components: { securitySchemes },
    security: Object.keys(securitySchemes).map((name) => ({ [name]: [] })),
  };
  return document;
}

interface ParameterObject {
  name?: string;
  in?: string;
  required?: boolean;
}

interface OperationObject {
  operationId?: string;
  responses?: Record<string, unknown>;
  parameters?: ParameterObject[];
  requestBody?: {
    required?: boolean;
    content?: Record<string, { schema?: object }>;
  };
  summary?: string;
  security?: unknown[];
}


/**
 * The JSON Schemas of the served schema with each mutation's REST body as its
 * `<Mutation>Input` (the arguments its path does not carry): built once at
 * start-up, they are the OpenAPI document's components and the schema
 * lookup's answers.
 */
export function buildRestJsonSchemas(schema: GraphQLSchema, routes: RestRoutes): Map<string, JsonSchema> {
  const pathArguments = new Map<string, string[]>();
  for (const [operationName, route] of Object.entries(routes)) {
    const [typeName, fieldName] = operationName.split('.') as ['Query' | 'Mutation', string];
    if (typeName === 'Mutation') pathArguments.set(fieldName, [...(route.path ?? '').matchAll(/:(\w+)/g)].map((match) => match[1]!));
  }
  return buildJsonSchemas(schema, { pathArguments });
}

/**
 * Makes SOFA's generated document (OpenAPI 3.0) the OpenAPI 3.1 document of
 * what the REST layer accepts and answers:
 * - its components are the schema lookup's JSON Schemas (`jsonSchemas`, from
 *   buildRestJsonSchemas), as they are, and the problem+json schema;
 * - a body is its mutation's `<Mutation>Input` component: its class's rules,
 *   no other field (`additionalProperties: false`: the REST layer refuses
 *   unknown ones), null where the service takes null, and no path parameter;
 * - POST/PUT/PATCH take no query parameter (use-sofa-rest.ts refuses them)
 *   but their switches (`?dryRun=true`);
 * - an argument with a default (`limit`, `includeDeleted`) or a nullable one
 *   is an optional query parameter;
 * - SOFA's OpenAPI 3.0 words (`nullable`, custom scalars as components)
 *   become JSON Schema 2020-12;
 * - each operation has a summary, the refusals it can answer, and needs no
 *   credential when it is open to anyone (`login`: no `@Authorized`).
 */
export function describeRestInputs(
  document: { openapi?: string; paths?: Record<string, object>; components?: unknown },
  schema: GraphQLSchema,
  routes: RestRoutes,
  jsonSchemas: ReadonlyMap<string, JsonSchema>,
): void {
  document.openapi = OPENAPI_VERSION;
  for (const [operationName, route] of Object.entries(routes)) {
    const [typeName, fieldName] = operationName.split('.') as ['Query' | 'Mutation', string];
    const field = (typeName === 'Query' ? schema.getQueryType() : schema.getMutationType())?.getFields()[fieldName];
    const method = (route.method ?? 'GET').toLowerCase();
    const pathItem = document.paths?.[(route.path ?? '').replace(/:(\w+)/g, '{$1}')] as Record<string, OperationObject> | undefined;
    const operation = pathItem?.[method];
    if (!field || !operation) continue;

    const optional = new Set(
      field.args.filter((arg) => arg.defaultValue !== undefined || !isNonNullType(arg.type)).map((arg) => arg.name),
    );
    const inPath = new Set(operation.parameters?.filter((p) => p.in === 'path').map((p) => p.name));
    if (BODY_METHODS.has(method.toUpperCase())) {
      // A body method takes its arguments in the body, and its switches in the query string too (`?dryRun=true`).
      const switches = field.args.filter(isSwitchArgument).map((arg) => ({
        in: 'query',
        name: arg.name,
        required: false,
        description: arg.description ?? undefined,
        schema: { type: 'boolean' },
      }));
      operation.parameters = [...(operation.parameters ?? []).filter((p) => p.in !== 'query'), ...switches];
    }
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'query' && optional.has(parameter.name ?? '')) parameter.required = false;
    }

    if (operation.requestBody) {
      const bodyName = mutationInputName(fieldName);
      const body = jsonSchemas.get(bodyName);
      if (typeName !== 'Mutation' || !body) delete operation.requestBody;
      else {
        operation.requestBody = {
          required: ((body.required as string[] | undefined) ?? []).length > 0,
          content: { 'application/json': { schema: { $ref: `${SCHEMA_REF_PREFIX}${bodyName}` } } },
        };
      }
    }

    const open = isOpenOperation(operationName);
    if (open) operation.security = [];
    operation.operationId = fieldName;
    operation.summary = summaryOf(fieldName, typeName === 'Query' ? (answersMany(field.type) ? 'List' : 'Get') : undefined);
    operation.responses = { ...operation.responses, ...problemResponses({ open, hasPath: inPath.size > 0, method, typeName }) };
  }
  for (const pathItem of Object.values(document.paths ?? {})) asJsonSchema2020(pathItem);
  document.components = { ...(document.components as object), schemas: { ...Object.fromEntries(jsonSchemas), Problem: PROBLEM_SCHEMA } };
}

const OPENAPI_VERSION = '3.1.1';

/** Words of an operation name that are written in capitals. */
const ACRONYMS = new Set(['api', 'ip', 'id', 'url']);

/**
 * The operation's name as a sentence: a mutation's name is its verb
 * (`updateApiKey` -> `Update API key`), a query's gets one (`apiKeys` ->
 * `List API keys`, `apiKey` -> `Get API key`).
 */
export function summaryOf(operationName: string, verb?: 'Get' | 'List'): string {
  const words = operationName.split(/(?=[A-Z])/).map((word) => (ACRONYMS.has(word.toLowerCase()) ? word.toUpperCase() : word.toLowerCase()));
  const sentence = [...(verb ? [verb] : []), ...words].join(' ');
  return `${sentence[0]!.toUpperCase()}${sentence.slice(1)}`;
}

/** A list, or a page of one (the `*Page` types: `items`, `nextCursor`). */
function answersMany(type: GraphQLOutputType): boolean {
  const answered = getNullableType(type);
  if (isListType(answered)) return true;
  return isObjectType(answered) && 'items' in answered.getFields() && 'nextCursor' in answered.getFields();
}

/** Custom scalars as JSON Schema: SOFA refers to them as components, which the schema lookup has none of. */
const SCALAR_SCHEMAS: Record<string, JsonSchema> = {
  DateTimeISO: { type: 'string', format: 'date-time' },
  JSONObject: { type: 'object' },
};

/**
 * SOFA's OpenAPI 3.0 schemas (parameters, answers) in JSON Schema 2020-12,
 * in place: a custom scalar's `$ref` becomes its schema (the node's other
 * keywords, a parameter's description, kept), and `nullable: true` a `null`
 * type (of a reference: `anyOf` it and `null`).
 */
function asJsonSchema2020(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(asJsonSchema2020);
  if (value === null || typeof value !== 'object') return;
  const node = value as Record<string, unknown>;
  for (const inner of Object.values(node)) asJsonSchema2020(inner);
  const ref = typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA_REF_PREFIX) ? node.$ref : undefined;
  const scalar = ref ? SCALAR_SCHEMAS[ref.slice(SCHEMA_REF_PREFIX.length)] : undefined;
  if (scalar) {
    delete node.$ref;
    Object.assign(node, scalar);
  }
  if (node.nullable === true) {
    delete node.nullable;
    if (typeof node.type === 'string') node.type = [node.type, 'null'];
    else if (typeof node.$ref === 'string') {
      node.anyOf = [{ $ref: node.$ref }, { type: 'null' }];
      delete node.$ref;
    }
  }
}

/** The problem+json refusals a route can answer, each as a documented response. */
function problemResponses({ open, hasPath, method, typeName }: { open: boolean; hasPath: boolean; method: string; typeName: 'Query' | 'Mutation' }) {
  const statuses: [string, string][] = [['400', 'Bad input: `errors` names each field and rule; nothing was changed']];
  if (open) {
    // Sign-in: every failure is the same answer, so it tells nothing about which part was wrong.
    statuses.push(['401', 'Invalid email or password']);
  } else {
    statuses.push(['401', 'No credential, or one that is invalid, expired or revoked (WWW-Authenticate: Bearer)']);
    statuses.push(['403', 'The caller may not do this (the detail says what was refused)']);
  }
  if (hasPath) statuses.push(['404', 'No such record (or one of another tenant)']);
  if (typeName === 'Mutation' && !open) statuses.push(['409', 'Conflict: `errors` names the field']);
  if (BODY_METHODS.has(method.toUpperCase())) {
    statuses.push(['413', 'The body is larger than BODY_LIMIT']);
    statuses.push(['415', 'The body is not sent as application/json']);
  }
  // The open route is sign-in, throttled per email and address; every other route is limited per API key.
  statuses.push(['429', open ? 'Too many failed sign-ins for this email or from this address (Retry-After)' : 'An API key past its hourly rateLimit (Retry-After, RateLimit)']);
  statuses.push(['500', 'Unexpected failure, masked: quote the requestId']);
  statuses.push(['503', 'The database is not reachable, or too many password hashes are waiting: try again after Retry-After']);
  return Object.fromEntries(
    statuses.map(([status, description]) => [
      status,
      { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } } },
    ]),
  );
}

const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** RFC 9457 problem details, as every refusal answers them (src/errors/render-problem.ts). */
const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details; `code` and `requestId` are ours, `errors` lists failing fields.',
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  properties: {
    type: { type: 'string', examples: ['about:blank'] },
    title: { type: 'string', examples: ['Bad Request'] },
    status: { type: 'integer', examples: [400] },
    detail: { type: 'string' },
    code: { type: 'string', examples: ['BAD_USER_INPUT'] },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'rule', 'message'],
        properties: { field: { type: 'string' }, rule: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};
