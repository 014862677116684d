import { isNonNullType, type GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { RestRoutes } from './rest-routes.js';
import type { SofaConfig } from './sofa-types.js';

/** Where SOFA (fets) serves the OpenAPI document, under the REST base path. */
export const OPENAPI_ENDPOINT = '/openapi.json';

/**
 * The OpenAPI document's fixed parts; SOFA adds every route and the schemas
 * of every GraphQL type. Both credential kinds are declared.
 */
export function openApiOptions({ version }: { version: string }): NonNullable<SofaConfig['openAPI']> {
  // `security` is valid OpenAPI that fets' type omits; fets copies the document as given.
  const document = {
    endpoint: OPENAPI_ENDPOINT,
    info: {
      title: 'Admin gateway REST API',
      description:
        'API keys, access-control users and roles, restaurant meal menus and schemas. ' +
        'Every route is generated from the GraphQL operation of the same meaning (served at /graphql). ' +
        'Errors are application/problem+json (RFC 9457).',
      version,
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token (POST /auth/login) or an API key secret' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
    security: [{ bearerAuth: [] }, { apiKey: [] }],
  };
  return document;
}

interface ParameterObject {
  name?: string;
  in?: string;
  required?: boolean;
}

interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: {
    required?: boolean;
    content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }>;
  };
  security?: unknown[];
}

const BODY_METHODS = new Set(['post', 'put', 'patch']);

/**
 * Corrects what SOFA's generated document says about each route's input, so
 * it matches what the REST layer accepts:
 * - POST/PUT/PATCH take arguments from the path and the JSON body only
 *   (sofa.ts refuses them in the query string), so no query parameters;
 * - a path parameter is not also a body field (a body may be omitted when
 *   every argument is in the path);
 * - an argument with a default (`limit`, `includeDeleted`, `items`) or a
 *   nullable one is optional;
 * - an operation open to anyone (`login`: no `@Authorized`) needs no credential.
 */
export function describeRestInputs(
  document: { paths?: Record<string, object> },
  schema: GraphQLSchema,
  routes: RestRoutes,
): void {
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
    if (operation.parameters && BODY_METHODS.has(method)) {
      operation.parameters = operation.parameters.filter((p) => p.in !== 'query');
    }
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'query' && optional.has(parameter.name ?? '')) parameter.required = false;
    }

    const body = operation.requestBody?.content?.['application/json']?.schema;
    if (operation.requestBody && body?.properties) {
      for (const name of inPath) delete body.properties[name as string];
      const required = (body.required ?? []).filter((name) => !inPath.has(name) && !optional.has(name));
      if (required.length > 0) body.required = required;
      else delete body.required;
      if (Object.keys(body.properties).length === 0) delete operation.requestBody;
      else operation.requestBody.required = required.length > 0;
    }

    if (isOpenOperation(typeName, fieldName)) operation.security = [];
  }
}

/** A root field whose resolver carries no `@Authorized` (on the method or its class): open to anyone. */
function isOpenOperation(typeName: 'Query' | 'Mutation', fieldName: string): boolean {
  const storage = getMetadataStorage();
  const resolver = (typeName === 'Query' ? storage.queries : storage.mutations).find((r) => r.schemaName === fieldName);
  if (!resolver) return false;
  const authorized =
    storage.authorizedFields.some((a) => a.target === resolver.target && a.fieldName === resolver.methodName) ||
    storage.authorizedResolver.some((a) => a.target === resolver.target);
  return !authorized;
}
