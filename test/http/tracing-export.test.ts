import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The default export path, as production runs it: no processor handed in,
 * so spans go in batches over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT's
 * `/v1/traces`. A small HTTP server stands in for the collector; the
 * service's stop() sends what is still queued.
 */
const received: { path: string; contentType: string; body: string }[] = [];
let collector: Server;
let app: TestApp | undefined;

beforeAll(async () => {
  collector = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  app = await startTestApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'exported-gateway' } });
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => collector?.close(resolve));
});

describe('tracing to an OTLP/HTTP collector', () => {
  it('sends the spans of a request to /v1/traces by the time the service has stopped', async () => {
    const admin = await app!.createUser({ tenantId: 'tenant-exported' });
    const read = await app!.rest('GET', '/restaurant/meal-menus/0123456789abcdef01234567', { token: admin.token, headers: { 'x-request-id': 'exported-1' } });
    expect(read.status).toBe(404);
    await app!.close();
    app = undefined;
    expect(received.length).toBeGreaterThan(0);
    expect(received.map((post) => post.path)).toEqual(received.map(() => '/v1/traces'));
    const sent = received.map((post) => post.body).join('\n');
    for (const expected of ['exported-gateway', 'GET /api/v1/restaurant/meal-menus/:id', 'Query.mealMenu', 'exported-1']) expect(sent).toContain(expected);
    expect(sent).not.toContain(admin.token);
  });
});
