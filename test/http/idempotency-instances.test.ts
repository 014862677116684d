import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callService, startInstancesOnEngine, type InstancesOnEngine } from '../support/service-process.js';

/**
 * An Idempotency-Key holds across service instances (its records are in the
 * database, not one process's memory): 20 requests with one key at once,
 * spread over two instances on one engine, make one menu, and each answers it.
 */

const ADMIN = { email: 'idem-admin@example.com', password: `Id3m-${randomBytes(6).toString('hex')}!` };
let instances: InstancesOnEngine;

beforeAll(async () => {
  instances = await startInstancesOnEngine({ name: 'idempotency-instances', database: 'idem_db', admin: ADMIN, jwtSecret: randomBytes(32).toString('hex') });
}, 180_000);
afterAll(() => instances?.close());

it('makes one record of 20 concurrent requests with one key over two instances', async () => {
  const [first, second] = instances.services;
  const { body: session } = await callService(first, 'POST', '/api/v1/auth/login', { body: ADMIN });
  const name = `menu ${randomBytes(4).toString('hex')}`;
  const body = JSON.stringify({ name, date: '2026-01-02', mealType: 'lunch', tenant_id: 'acme' });
  const answers = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const service = i % 2 === 0 ? first : second;
      const response = await fetch(`${service.baseUrl}/api/v1/restaurant/meal-menus`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${session.accessToken}`, 'idempotency-key': 'one-key-two-instances' },
        body,
      });
      return { status: response.status, body: (await response.json()) as { id: string } };
    }),
  );
  expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
  expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
  const client = await MongoClient.connect(instances.engine.uri);
  try {
    expect(await client.db('idem_db').collection('mealmenus').countDocuments({ name })).toBe(1);
  } finally {
    await client.close();
  }
}, 60_000);
