import { describe, expect, it } from 'vitest';
import { assertRollWithin, settingsForCreate, settingsForUpdate, type KeySettings } from '../../src/api-keys/api-key-bounds.js';
import { DEFAULT_RATE_LIMIT } from '../../src/api-keys/api-key.model.js';
import type { Actor, ApiKeyBounds } from '../../src/auth/index.js';
import type { AppError } from '../../src/errors/index.js';

/**
 * Create, roll and update share one check of a key's settings against the
 * calling key's (assertSettingsWithin): the same settings are refused, with
 * the same fields named, whichever of the three asks.
 */

const later = new Date('2030-01-01T00:00:00Z');
const sooner = new Date('2029-01-01T00:00:00Z');
const bounds: ApiKeyBounds = { expiresAt: sooner, rateLimit: 100, allowedIPs: ['10.0.0.0/8'], allowedOrigins: ['https://a.example'] };

function actorVia(via: Actor['via']): Actor {
  return { userId: 'u1', tenantId: 't1', roles: ['admin'], permissions: new Set(['*']), via } as unknown as Actor;
}
const keyActor = actorVia({ kind: 'api-key', apiKeyId: 'k1', keyId: 'kid', platform: false, rateLimit: {} as never, bounds });
const userActor = actorVia({ kind: 'jwt' });

const within: KeySettings = { expiresAt: sooner, rateLimit: 50, allowedIPs: ['10.1.0.0/16'], allowedOrigins: ['https://a.example'] };
const beyond: KeySettings = { expiresAt: later, rateLimit: 500, allowedIPs: ['11.0.0.1'], allowedOrigins: ['https://b.example'] };
const allFields = ['expiresAt', 'rateLimit', 'allowedIPs', 'allowedOrigins'];

function refusedFields(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    const refused = error as AppError;
    expect(refused.status).toBe(403);
    return (refused.fieldErrors ?? []).map((entry) => entry.field);
  }
  return [];
}

const actions: [string, (actor: Actor, settings: KeySettings) => unknown][] = [
  ['create', (actor, settings) => settingsForCreate(actor, settings)],
  ['roll', (actor, settings) => assertRollWithin(actor, settings)],
  ['update', (actor, settings) => settingsForUpdate(actor, within, settings)],
];

describe.each(actions)('%s through the shared bound', (_name, run) => {
  it('refuses, for a key acting, each setting beyond it (403 naming every field)', () => {
    expect(refusedFields(() => run(keyActor, beyond))).toEqual(allFields);
  });
  it('accepts settings within the calling key', () => {
    expect(refusedFields(() => run(keyActor, within))).toEqual([]);
  });
  it('never bounds a user in person', () => {
    expect(refusedFields(() => run(userActor, beyond))).toEqual([]);
  });
});

describe('settingsForUpdate', () => {
  it('keeps left-out fields, replaces given ones and clears null ones', () => {
    const current: KeySettings = { expiresAt: later, rateLimit: 7, allowedIPs: ['10.0.0.1'], allowedOrigins: ['https://a.example'] };
    expect(settingsForUpdate(userActor, current, { rateLimit: 9, expiresAt: null, allowedIPs: null })).toEqual({
      expiresAt: null,
      rateLimit: 9,
      allowedIPs: [],
      allowedOrigins: ['https://a.example'],
    });
    expect(settingsForUpdate(userActor, current, { rateLimit: null }).rateLimit).toBe(DEFAULT_RATE_LIMIT);
  });
  it('refuses, for a key acting, clearing a bound the calling key holds', () => {
    expect(refusedFields(() => settingsForUpdate(keyActor, within, { expiresAt: null, allowedIPs: null }))).toEqual(['expiresAt', 'allowedIPs']);
  });
});
