import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('health probes', () => {
  it('/healthz answers 200 without a credential', async () => {
    const response = await app.http('GET', '/healthz');
    expect([response.status, response.body]).toEqual([200, { status: 'ok' }]);
  });

  it('/readyz answers 200 when the database answers a ping', async () => {
    const response = await app.http('GET', '/readyz');
    expect([response.status, response.body]).toEqual([200, { status: 'ready' }]);
  });

  it('/readyz answers 503 when the database is unreachable', async () => {
    const db = mongoose.connection.db!;
    const original = db.command.bind(db);
    db.command = (async () => {
      throw new Error('unreachable');
    }) as typeof db.command;
    try {
      const response = await app.http('GET', '/readyz');
      expect([response.status, response.body]).toEqual([503, { status: 'unavailable' }]);
    } finally {
      db.command = original;
    }
  });
});
