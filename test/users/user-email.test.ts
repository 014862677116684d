import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeError } from '../../src/errors/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Stored users: one email per tenant, whatever its case; a duplicate is a 409 naming `email`. */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await app.createUser({ tenantId: 'tenant-x', email: 'Dup@Example.test' });
});
afterAll(() => app?.close());

async function createError(tenantId: string | null, email: string): Promise<unknown> {
  try {
    await app.createUser({ tenantId, email });
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('user emails', () => {
  it('refuses the same email in another case within the tenant', async () => {
    const error = normalizeError(await createError('tenant-x', 'dup@example.TEST'));
    expect([error.code, error.fieldErrors?.[0]?.field]).toEqual(['CONFLICT', 'email']);
  });

  it('allows the same email in another tenant', async () => {
    expect(await createError('tenant-y', 'dup@example.test')).toBeUndefined();
  });
});
