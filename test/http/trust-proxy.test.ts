import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * With TRUST_PROXY naming the proxy (here the loopback, where the test
 * client connects from), the client IP an API key's allowedIPs sees is the
 * one X-Forwarded-For gives.
 */

let app: TestApp;
let creator: TestUser;
beforeAll(async () => {
  app = await startTestApp({ env: { TRUST_PROXY: 'loopback' } });
  creator = await app.createUser({ tenantId: 'tenant-proxy', roles: ['admin'] });
});
afterAll(() => app?.close());

async function keyAllowing(ips: string[]): Promise<string> {
  const response = await app.rest('POST', '/api-keys', { token: creator.token, body: { name: 'behind a proxy', scopes: ['menus:read'], allowedIPs: ips } });
  expect(response.status).toBe(201);
  return response.body.key;
}

describe('a trusted proxy', () => {
  it('lets X-Forwarded-For decide the client IP', async () => {
    const key = await keyAllowing(['203.0.113.0/24']);
    const from = (ip: string) => app.rest('GET', '/restaurant/meal-menus', { token: key, headers: { 'x-forwarded-for': ip } });
    expect([(await from('203.0.113.9')).status, (await from('198.51.100.1')).status]).toEqual([200, 403]);
  });

  it('reads the client, not a spoofed first hop, when the proxy appends', async () => {
    const key = await keyAllowing(['203.0.113.0/24']);
    // The client sent "203.0.113.9"; the (trusted) proxy appended the real address 198.51.100.1.
    const response = await app.rest('GET', '/restaurant/meal-menus', { token: key, headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.1' } });
    expect(response.status).toBe(403);
  });
});
