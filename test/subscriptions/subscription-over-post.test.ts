import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/** POST /graphql and the REST surface stay as they were: a subscription runs over WebSocket or SSE only. */
let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: 'tenant-a' });
});

afterAll(async () => {
  await app?.close();
});

describe('the events subscription beside the other surfaces', () => {
  it('a plain POST /graphql (no text/event-stream) with a subscription is answered at once, not held open', async () => {
    const response = await app.graphql('subscription { events { id } }', {}, { token: admin.token });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(response.body.errors[0].message).toContain('text/event-stream');
  });

  it('a query over POST /graphql is unaffected', async () => {
    const response = await app.graphql('{ me { id } }', {}, { token: admin.token });
    expect(response.status).toBe(200);
    expect(response.body.data.me.id).toBe(admin.id);
  });

  it('SOFA makes no REST route of it: the OpenAPI document has no subscription or webhook path', async () => {
    const document = (await app.http('GET', '/api/v1/openapi.json')).body as { paths: Record<string, unknown> };
    // SOFA's own routes for subscriptions are /webhook and /webhook/{id} (singular); the webhooks area's /webhooks are not.
    expect(Object.keys(document.paths).filter((path) => /^\/webhook(\/|$)|subscri/i.test(path))).toEqual([]);
    expect((await app.rest('POST', '/webhook', { token: admin.token, body: { subscription: 'events' } })).status).toBe(404);
  });
});
