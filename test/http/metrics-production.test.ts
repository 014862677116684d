import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { parseExposition } from './fixtures/exposition.js';

/**
 * GET /metrics in production: with METRICS_TOKEN a scrape must send it as a
 * bearer token (401 without it or with another); without METRICS_TOKEN the
 * endpoint is not served at all (404).
 */
const TOKEN = 'metrics-token-0123456789abcdef0123456789';

describe('production with METRICS_TOKEN', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { NODE_ENV: 'production', METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => app?.close());

  it('refuses a scrape without the token, naming what it needs', async () => {
    const response = await app.http('GET', '/metrics');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.body).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', detail: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' });
  });

  it('refuses another token, also one that only starts like it', async () => {
    for (const token of ['wrong', TOKEN.slice(0, -1), `${TOKEN}x`]) expect((await app.http('GET', '/metrics', { token })).status).toBe(401);
    expect((await app.http('GET', '/metrics', { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(401);
  });

  it('answers the token with the metrics, never cached', async () => {
    const response = await app.http('GET', '/metrics', { token: TOKEN });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(parseExposition(response.body).types.get('http_server_request_duration_seconds')).toBe('histogram');
    // Never in what it answers.
    expect(response.body).not.toContain(TOKEN);
  });
});

describe('production without METRICS_TOKEN', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { NODE_ENV: 'production' } });
  });
  afterAll(async () => app?.close());

  it('does not serve /metrics', async () => {
    expect((await app.http('GET', '/metrics')).status).toBe(404);
  });
});
