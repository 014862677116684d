import { isInputObjectType, isNonNullType, isObjectType, isScalarType, isSpecifiedScalarType, type GraphQLSchema } from 'graphql';
import { buildJsonSchemas, isOpenOperation, type JsonSchema } from '../graphql/index.js';
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
  /** OpenAPI security schemes, by name; every route needs one of them unless it is open. */
  securitySchemes: Record<string, object>;
}

/**
 * The OpenAPI document's fixed parts; SOFA adds every route and the schemas
 * of every GraphQL type.
 */
export function openApiOptions({ title, description, version, securitySchemes }: OpenApiDescription): NonNullable<SofaConfig['openAPI']> {
  // `security` is valid OpenAPI that fets' type omits; fets copies the document as given.
  const document = {
    endpoint: OPENAPI_ENDPOINT,
    info: { title, description, version },
    components: { securitySchemes },
    security: Object.keys(securitySchemes).map((name) => ({ [name]: [] })),
  };
  return document;
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
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
    content?: Record<string, { schema?: ObjectSchema }>;
  };
  security?: unknown[];
}


/**
 * Corrects what SOFA's generated document says about each route's input, so
 * it matches what the REST layer accepts:
 * - POST/PUT/PATCH take arguments from the path and the JSON body only
 *   (use-sofa-rest.ts refuses them in the query string), so no query parameters;
 * - a path parameter is not also a body field (a body may be omitted when
 *   every argument is in the path);
 * - an argument with a default (`limit`, `includeDeleted`, `items`) or a
 *   nullable one is optional, and a body field takes `null` (`nullable: true`)
 *   where the input's JSON Schema does (an update's `null` clears a field,
 *   login's `tenantId` null names the platform account; a field whose class
 *   says IsDefined may be absent but not null, although GraphQL types it
 *   nullable);
 * - a body takes no other field (`additionalProperties: false`): the REST
 *   layer refuses unknown ones;
 * - an operation open to anyone (`login`: no `@Authorized`) needs no credential.
 */
export function describeRestInputs(
  document: { paths?: Record<string, object> },
  schema: GraphQLSchema,
  routes: RestRoutes,
): void {
  const inputSchemas = buildJsonSchemas(schema);
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

    const body = operation.requestBody?.content?.['application/json']?.schema;
    if (operation.requestBody && body?.properties) {
      const input = inputSchemas.get(`${fieldName[0].toUpperCase()}${fieldName.slice(1)}Input`);
      const declared = (input?.properties ?? {}) as Record<string, JsonSchema>;
      for (const name of inPath) delete body.properties[name as string];
      for (const arg of field.args) {
        if (!body.properties[arg.name]) continue;
        const takesNull = declared[arg.name] ? acceptsNull(declared[arg.name]) : !isNonNullType(arg.type);
        body.properties[arg.name] = withNullability(body.properties[arg.name], takesNull);
      }
      withValidationRules(body.properties, input);
      if (input?.additionalProperties === false) body.additionalProperties = false;
      const required = (body.required ?? []).filter((name) => !inPath.has(name) && !optional.has(name));
      if (required.length > 0) body.required = required;
      else delete body.required;
      if (Object.keys(body.properties).length === 0) delete operation.requestBody;
      else operation.requestBody.required = required.length > 0;
    }

    const open = isOpenOperation(operationName);
    if (open) operation.security = [];
    operation.operationId = fieldName;
    operation.responses = { ...operation.responses, ...problemResponses({ open, hasPath: inPath.size > 0, method, typeName }) };
  }
  describeComponents(document as { components?: { schemas?: Record<string, unknown> } }, schema, inputSchemas);
}

/**
 * JSON Schema keywords that mean the same in OpenAPI 3.0 and carry a validation
 * rule, and the description (the JSON Schema's says where a pattern is not exact).
 */
const RULE_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'minItems', 'maxItems', 'uniqueItems', 'enum', 'default', 'description'];

/**
 * Each body field, and each field of an input type, gets the rules its class
 * declares (the schema lookup's `<Mutation>Input` or input type,
 * src/graphql/json-schema.ts), so the docs show them: lengths, patterns,
 * formats, bounds, list sizes.
 */
function withValidationRules(properties: Record<string, unknown>, input: JsonSchema | undefined): void {
  const declared = (input?.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(properties)) {
    const rules = declared[name];
    if (!rules || typeof property !== 'object' || property === null) continue;
    copyRules(property as Record<string, unknown>, rules);
    const items = (property as { items?: Record<string, unknown> }).items;
    if (items && typeof rules.items === 'object' && rules.items !== null && !('$ref' in items)) copyRules(items, rules.items as JsonSchema);
  }
}

function copyRules(target: Record<string, unknown>, rules: JsonSchema): void {
  if ('$ref' in target) return;
  for (const keyword of RULE_KEYWORDS) {
    // A nullable reference (wrapped in allOf) already carries its description next to the $ref.
    if (rules[keyword] !== undefined && !(keyword === 'description' && 'allOf' in target)) target[keyword] = rules[keyword];
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

/** Whether a JSON Schema (src/graphql/json-schema.ts) takes null: `type: [..., 'null']` or `anyOf: [..., {type: 'null'}]`. */
function acceptsNull(property: JsonSchema): boolean {
  if (Array.isArray(property.type)) return property.type.includes('null');
  return Array.isArray(property.anyOf) && property.anyOf.some((option) => (option as JsonSchema).type === 'null');
}

/** A property schema that takes null exactly when `takesNull`. */
function withNullability(property: unknown, takesNull: boolean): unknown {
  if (typeof property !== 'object' || property === null) return property;
  const { nullable: wasNullable, ...rest } = property as Record<string, unknown>;
  if (takesNull) return wasNullable ? property : nullable(property);
  if (wasNullable && Array.isArray(rest.allOf) && rest.allOf.length === 1 && Object.keys(rest).length === 1) return rest.allOf[0];
  return rest;
}

/** A property schema that also takes null; a `$ref` cannot carry siblings in OpenAPI 3.0, so it is wrapped. */
function nullable(property: unknown): unknown {
  if (typeof property !== 'object' || property === null) return property;
  if ('$ref' in property) return { nullable: true, allOf: [property] };
  return { ...property, nullable: true };
}

/** Custom scalars as OpenAPI schemas; SOFA refers to them by name without describing them. */
const SCALAR_SCHEMAS: Record<string, object> = {
  DateTimeISO: { type: 'string', format: 'date-time' },
  JSONObject: { type: 'object', additionalProperties: true },
};

/**
 * The components SOFA leaves out or should not add: the problem+json schema
 * every refusal follows, each custom scalar it refers to, and no
 * `Query`/`Mutation` (the root types are no REST resources). An input type
 * (a nested body object) is described as its JSON Schema says: its class's
 * rules, no other field, and only the fields without a default required.
 */
function describeComponents(
  document: { components?: { schemas?: Record<string, unknown> } },
  schema: GraphQLSchema,
  inputSchemas: ReadonlyMap<string, JsonSchema>,
): void {
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  delete schemas.Query;
  delete schemas.Mutation;
  for (const type of Object.values(schema.getTypeMap())) {
    if (isScalarType(type) && !isSpecifiedScalarType(type)) schemas[type.name] ??= SCALAR_SCHEMAS[type.name] ?? { type: 'string', description: type.description ?? undefined };
    // A field that can be null in an answer (nullable in GraphQL) or in a body (its JSON Schema takes null): OpenAPI 3.0 says `nullable`.
    const component = schemas[type.name] as ObjectSchema | undefined;
    const properties = component?.properties;
    if (!component || !properties || !(isObjectType(type) || isInputObjectType(type))) continue;
    const input = isInputObjectType(type) ? inputSchemas.get(type.name) : undefined;
    const declared = (input?.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, typeField] of Object.entries(type.getFields())) {
      if (!properties[name]) continue;
      properties[name] = withNullability(properties[name], declared[name] ? acceptsNull(declared[name]) : !isNonNullType(typeField.type));
    }
    if (input) {
      withValidationRules(properties, input);
      const required = (input.required as string[] | undefined) ?? [];
      if (required.length > 0) component.required = required;
      else delete component.required;
      if (input.additionalProperties === false) component.additionalProperties = false;
    }
  }
  schemas.Problem = {
    type: 'object',
    description: 'RFC 9457 problem details; `code` and `requestId` are ours, `errors` lists failing fields.',
    required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
    properties: {
      type: { type: 'string', example: 'about:blank' },
      title: { type: 'string', example: 'Bad Request' },
      status: { type: 'integer', example: 400 },
      detail: { type: 'string' },
      code: { type: 'string', example: 'BAD_USER_INPUT' },
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
}
