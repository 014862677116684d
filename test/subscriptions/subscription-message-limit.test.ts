import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * A WebSocket message on /graphql is read up to BODY_LIMIT, as a POST body is
 * (ws alone reads 100 MiB before any credential is checked): a larger one
 * closes the socket with 1009 (message too big); one within it is served.
 */
let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp({ env: { BODY_LIMIT: '2kb' } });
  admin = await app.createUser({ tenantId: 'tenant-ws-limit', roles: ['admin'] });
});

afterAll(async () => {
  await app.close();
});

/** Opens a graphql-transport-ws socket, sends `message`, and answers how it ended or what came back first. */
function sendOne(message: string): Promise<{ closedWith?: number; reply?: Record<string, unknown> }> {
  const socket = new WebSocket(app.baseUrl.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => socket.send(message));
    socket.once('message', (data) => {
      resolve({ reply: JSON.parse(String(data)) as Record<string, unknown> });
      socket.close();
    });
    socket.once('close', (code) => resolve({ closedWith: code }));
  });
}

describe('WebSocket messages on /graphql are bounded by BODY_LIMIT', () => {
  it('a connection_init over the limit closes the socket with 1009, unread', async () => {
    const oversize = JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${admin.token}`, padding: 'x'.repeat(4096) } });
    expect(await sendOne(oversize)).toEqual({ closedWith: 1009 });
  });

  it('a connection_init within the limit is acknowledged', async () => {
    const small = JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${admin.token}` } });
    expect(await sendOne(small)).toEqual({ reply: { type: 'connection_ack' } });
  });
});
