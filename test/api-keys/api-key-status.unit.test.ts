import { describe, expect, it } from 'vitest';
import { ApiKeyStatus, apiKeyStatusAt } from '../../src/api-keys/api-key.model.js';

/** Where a key stands: revoked wins, then expired, then disabled, else active. */
describe('apiKeyStatusAt', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const past = new Date('2029-01-01T00:00:00Z');
  const future = new Date('2031-01-01T00:00:00Z');
  it.each([
    [{ revokedAt: null, expiresAt: null, disabledAt: null }, ApiKeyStatus.active],
    [{ revokedAt: null, expiresAt: future }, ApiKeyStatus.active],
    [{ revokedAt: null, expiresAt: future, disabledAt: past }, ApiKeyStatus.disabled],
    [{ revokedAt: null, expiresAt: past, disabledAt: past }, ApiKeyStatus.expired],
    [{ revokedAt: past, expiresAt: past, disabledAt: past }, ApiKeyStatus.revoked],
    [{ revokedAt: past, expiresAt: null, disabledAt: past }, ApiKeyStatus.revoked],
  ])('%j reads %s', (key, status) => {
    expect(apiKeyStatusAt(key, now)).toBe(status);
  });
});
