import { recordRoutes } from './use-conditional-requests.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './use-idempotency-key.js';
import { routeMethod, type RestRoutes } from './rest-routes.js';

interface OperationObject {
  parameters?: object[];
  responses?: Record<string, { headers?: Record<string, object> } & Record<string, unknown>>;
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});
const etagHeader = { ETag: { description: 'Strong: `"<updatedAt ms>-<hash of the answer>"`.', schema: { type: 'string' } } };

/**
 * The conventions the REST edge adds to routes (http/use-conditional-requests.ts,
 * http/use-idempotency-key.ts), written into the OpenAPI document from the same
 * route table: ETag / If-None-Match / 304 on one record's GET, If-Match /
 * 412 on its PATCH and DELETE, Idempotency-Key / 422 on the creates.
 */
export function describeConventions(document: { paths?: Record<string, object> }, routes: RestRoutes, idempotentCreates: ReadonlySet<string>): void {
  const { reads, writes } = recordRoutes(routes);
  for (const [operationName, route] of Object.entries(routes)) {
    const method = routeMethod(operationName, route).toLowerCase();
    const operation = (document.paths?.[(route.path ?? '').replace(/:(\w+)/g, '{$1}')] as Record<string, OperationObject> | undefined)?.[method];
    if (!operation) continue;
    const responses = (operation.responses ??= {});
    const parameters = (operation.parameters ??= []);
    if (reads.has(operationName)) {
      parameters.push(header('If-None-Match', 'An ETag of this record: 304 while it is still current.'));
      if (responses['200']) responses['200'].headers = { ...responses['200'].headers, ...etagHeader };
      responses['304'] = { description: 'Not modified: the ETag sent is current (no body).', headers: etagHeader };
    }
    if (writes.has(operationName)) {
      parameters.push(header('If-Match', "The record's ETag as read: the change is made only if it is still current."));
      responses['412'] = problem('Precondition failed: the record changed since it was read (If-Match); nothing was changed.');
    }
    if (idempotentCreates.has(operationName)) {
      parameters.push(
        header(IDEMPOTENCY_HEADER, 'Up to 255 printable ASCII characters: a repeat with the same key and body within 24 hours answers the first answer again.'),
      );
      const created = responses['201'];
      if (created) created.headers = { ...created.headers, [IDEMPOTENT_REPLAYED_HEADER]: { description: '`true` on a replayed answer.', schema: { type: 'string' } } };
      responses['422'] = problem('The Idempotency-Key was used with another request within 24 hours.');
    }
  }
}

function header(name: string, description: string) {
  return { name, in: 'header', required: false, description, schema: { type: 'string' } };
}
