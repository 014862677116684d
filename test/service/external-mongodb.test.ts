import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../../src/engine/index.js';
import { callService as call, startInstancesOnEngine, type InstancesOnEngine, type ServiceProcess } from '../support/service-process.js';

/**
 * With MONGODB_URI the service uses that MongoDB and starts no engine of its
 * own; being stateless, two instances on one database serve the same data.
 * The MongoDB here is our engine running on its own, as `npm run engine` does.
 */

const ADMIN = { email: 'shared-admin@example.com', password: `Sh4red-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');

let instances: InstancesOnEngine;
let workDir: string;
let mongo: RunningEngine;
let services: ServiceProcess[];

beforeAll(async () => {
  // Two instances at once on an empty database: one creates the administrator.
  instances = await startInstancesOnEngine({ name: 'external-mongodb', database: 'shared_db', admin: ADMIN, jwtSecret: JWT_SECRET });
  ({ workDir, engine: mongo, services } = instances);
}, 180_000);

afterAll(() => instances?.close());

describe('a service on MONGODB_URI', () => {
  it('starts no embedded engine of its own', () => {
    expect(existsSync(path.join(workDir, 'unused-data'))).toBe(false);
  });

  it('keeps its data in the database the URI names', async () => {
    const client = new MongoClient(mongo.uri);
    try {
      const users = await client.db('shared_db').collection('users').find({}, { projection: { email: 1 } }).toArray();
      expect(users.map((user) => user.email)).toEqual([ADMIN.email]);
    } finally {
      await client.close();
    }
  });

  it('serves, from a second instance, what the first one wrote', async () => {
    const [first, second] = services;
    const { body: session } = await call(first!, 'POST', '/api/v1/auth/login', { body: ADMIN });
    const created = await call(first!, 'POST', '/api/v1/restaurant/meal-menus', {
      token: session.accessToken,
      body: { name: 'Shared lunch', date: '2026-04-04', mealType: 'lunch', tenant_id: 'tenant-shared' },
    });
    expect(created.status).toBe(201);

    const read = await call(second!, 'GET', `/api/v1/restaurant/meal-menus/${created.body.id}`, { token: session.accessToken });
    expect([read.status, read.body.name]).toEqual([200, 'Shared lunch']);
  });
});
