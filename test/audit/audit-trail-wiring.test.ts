import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewAuditEvent } from '../../src/audit/index.js';
import type { Actor } from '../../src/auth/index.js';
import { loadConfig } from '../../src/config.js';
import { connectMongoose, startEmbeddedEngine } from '../../src/database.js';
import type { AppHandle } from '../../src/http/app.js';
import { buildServiceSchema, createService } from '../../src/service.js';

/**
 * The trail the `Audited` middleware writes to is the one the composition
 * root gives the service (no trail of the middleware's own): the records of
 * both surfaces reach it, and `stop()` drains that trail.
 */

const platform: Actor = { userId: '65f0c0ffee0000000000cafe', tenantId: null, permissions: new Set(['*']), roles: ['admin'], via: { kind: 'jwt' } };
const recorded: NewAuditEvent[] = [];
let drained = 0;
const trail = {
  async record(event: NewAuditEvent) {
    recorded.push(event);
  },
  async drain() {
    drained += 1;
  },
};

let engine: Awaited<ReturnType<typeof startEmbeddedEngine>>;
let handle: AppHandle;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' });
  engine = await startEmbeddedEngine({ inMemory: true, port: 0 });
  await connectMongoose(engine.uri, `test_${randomBytes(4).toString('hex')}`);
  handle = await createService(config, await buildServiceSchema(), {
    resolveActor: async () => platform,
    services: { auditEvents: trail as never },
  });
  server = handle.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await mongoose.disconnect();
  await engine?.close();
});

const missing = '65f0c0ffee0000000000dead';
const calls = {
  REST: () => fetch(`${baseUrl}/api/v1/restaurant/meal-menus/${missing}`, { method: 'DELETE' }),
  GraphQL: () =>
    fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($id: ID!) { deleteMealMenu(id: $id) { id } }', variables: { id: missing } }),
    }),
};

describe('the audit trail the composition root gives', () => {
  it.each(Object.entries(calls))('receives the record of an audited call over %s', async (_surface, call) => {
    const before = recorded.length;
    await (await call()).text();
    expect(recorded.slice(before)).toEqual([expect.objectContaining({ action: 'menus.delete', target: { type: 'MealMenu', id: missing } })]);
  });

  it('is drained by stop()', async () => {
    await handle.stop();
    expect(drained).toBe(1);
  });
});
