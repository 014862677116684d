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

interface OperationObject {
  parameters?: Array<{ in?: string }>;
}

/**
 * SOFA lists every non-path argument of a POST/PUT/PATCH route as a query
 * parameter too; those routes take them from the JSON body only (sofa.ts
 * refuses them in the query string), so the document should not offer them.
 */
export function dropQueryParametersOfBodyRoutes(document: { paths?: Record<string, object> }): void {
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const method of ['post', 'put', 'patch'] as const) {
      const operation = (pathItem as Record<string, OperationObject | undefined>)[method];
      if (operation?.parameters) operation.parameters = operation.parameters.filter((p) => p.in !== 'query');
    }
  }
}
