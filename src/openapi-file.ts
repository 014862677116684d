/**
 * schema/openapi.json: the OpenAPI document the service serves at
 * /api/v1/openapi.json, committed so that clients can generate code and
 * review changes without running the service. `npm run openapi` writes it;
 * test/http/openapi-snapshot.test.ts fails when it is stale.
 */
export const openApiFilePath = 'schema/openapi.json';

/** The document as committed: object keys sorted at every depth (arrays keep their order), two-space indent, a final newline. */
export function renderOpenApiFile(document: unknown): string {
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
