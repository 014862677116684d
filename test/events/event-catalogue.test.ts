import { describe, expect, it } from 'vitest';
import { auditActions, auditedTargetTypes } from '../../src/audit/index.js';
import { AUDITED_EVENT_TYPES, EVENT_TYPES, SYSTEM_EVENT_TYPES } from '../../src/events/index.js';
import { buildServiceSchema, eventTargetCollections } from '../../src/service.js';

/**
 * The event catalogue's audited half (src/events/event-types.ts) is exactly
 * the actions the service records: every `Audited` declaration of the
 * schema's resolvers and the two records written outside the middleware
 * (declareAuditAction), collected once the schema is built.
 */
describe('the event catalogue', () => {
  it('lists every audited action, and nothing the service does not record', async () => {
    await buildServiceSchema();
    expect([...auditActions].sort()).toEqual([...AUDITED_EVENT_TYPES].sort());
  });

  it('names each type once', () => {
    expect(new Set(EVENT_TYPES).size).toBe(AUDITED_EVENT_TYPES.length + SYSTEM_EVENT_TYPES.length);
  });
});

describe('the outbox evidence', () => {
  it('stamps the records of every target type an audited call names (else a crashed call of that type would lose its event)', async () => {
    await buildServiceSchema();
    expect([...auditedTargetTypes].filter((type) => !Object.hasOwn(eventTargetCollections, type))).toEqual([]);
  });
});
