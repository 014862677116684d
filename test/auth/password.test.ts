import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/auth/password.js';

describe('password hashing', () => {
  it('stores Argon2id with m=19456, t=2, p=1', async () => {
    expect(await hashPassword('Passw0rd!')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('salts each hash', async () => {
    expect(await hashPassword('Passw0rd!')).not.toBe(await hashPassword('Passw0rd!'));
  });

  it('verifies the right password', async () => {
    expect(await verifyPassword(await hashPassword('Passw0rd!'), 'Passw0rd!')).toBe(true);
  });

  it('rejects a wrong password', async () => {
    expect(await verifyPassword(await hashPassword('Passw0rd!'), 'passw0rd!')).toBe(false);
  });

  it('rejects rather than throws on a malformed stored hash', async () => {
    expect(await verifyPassword('not-a-hash', 'Passw0rd!')).toBe(false);
  });
});
