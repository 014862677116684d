/**
 * schema/openapi.json: the OpenAPI document the service serves at
 * /api/v1/openapi.json, committed so that clients can generate code and
 * review changes without running the service. `npm run openapi` writes it;
 * test/http/openapi-snapshot.test.ts fails when it is stale. Its text is the
 * served text, byte for byte (src/http/openapi.ts renders both).
 */
export const openApiFilePath = 'schema/openapi.json';

