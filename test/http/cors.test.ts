import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { CORS_ORIGINS: 'https://admin.example' } });
});
afterAll(() => app?.close());

describe('CORS', () => {
  it('allows a listed origin', async () => {
    const response = await app.http('GET', '/healthz', { headers: { origin: 'https://admin.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://admin.example');
  });

  it('gives an unlisted origin no CORS headers', async () => {
    const response = await app.http('GET', '/healthz', { headers: { origin: 'https://evil.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight of a listed origin with 204 and the allowed headers', async () => {
    const response = await app.http('OPTIONS', '/api/v1/auth/login', {
      headers: { origin: 'https://admin.example', 'access-control-request-method': 'POST' },
    });
    expect([response.status, response.headers.get('access-control-allow-headers')]).toEqual([204, expect.stringContaining('Authorization')]);
  });

  it('lets the browser read the request id, WWW-Authenticate, the rate-limit fields and Allow', async () => {
    const response = await app.http('GET', '/healthz', { headers: { origin: 'https://admin.example' } });
    const exposed = response.headers.get('access-control-expose-headers')?.split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['X-Request-Id', 'WWW-Authenticate', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'Allow']));
  });
});
