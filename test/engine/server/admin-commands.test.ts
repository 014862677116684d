import { Long, MongoServerError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from './test-engine.js';

describe('admin commands', () => {
  let t: TestEngine;
  const admin = async () => (await t.client()).db('admin');
  beforeAll(async () => {
    t = await startTestEngine();
  });
  afterAll(() => t.stop());

  it('answers an unknown command with 59 CommandNotFound', async () => {
    const error = await (await admin()).command({ noSuchThing: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 59, codeName: 'CommandNotFound', errmsg: "no such command: 'noSuchThing'" });
  });

  it('has no users or roles: usersInfo and rolesInfo are empty, createUser is refused with 115 (no authentication)', async () => {
    const db = (await t.client()).db('app');
    expect(await db.command({ usersInfo: 1 })).toEqual({ users: [], ok: 1 });
    expect(await db.command({ rolesInfo: 1 })).toEqual({ roles: [], ok: 1 });
    const error = await db.command({ createUser: 'u', pwd: 'p', roles: [] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 115, codeName: 'CommandNotSupported' });
  });

  it('matches command names case-sensitively', async () => {
    const error = await (await admin()).command({ PING: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 59 });
  });

  it('refuses a command carrying a transaction number with 20 IllegalOperation', async () => {
    const error = await (await admin()).command({ ping: 1, txnNumber: Long.fromNumber(1), autocommit: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 20, codeName: 'IllegalOperation' });
  });

  it('refuses commands run inside a driver transaction', async () => {
    const client = await t.client();
    const session = client.startSession();
    session.startTransaction();
    const error = await client.db('app').command({ ping: 1 }, { session }).catch((e: unknown) => e);
    await session.endSession();
    expect(error).toMatchObject({ code: 20, errmsg: 'Transaction numbers are only allowed on a replica set member or mongos' });
  });

  it('refuses commitTransaction with 20', async () => {
    const error = await (await admin()).command({ commitTransaction: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 20 });
  });

  it('accepts session fields (lsid, $readPreference, readConcern) on any command', async () => {
    const client = await t.client();
    const session = client.startSession();
    const reply = await client.db('app').command({ ping: 1, readConcern: { level: 'majority' } }, { session });
    await session.endSession();
    expect(reply.ok).toBe(1);
  });

  it('reports featureCompatibilityVersion 7.0 through getParameter', async () => {
    const reply = await (await admin()).command({ getParameter: 1, featureCompatibilityVersion: 1 });
    expect(reply).toEqual({ featureCompatibilityVersion: { version: '7.0' }, ok: 1 });
  });

  it("lists every parameter for getParameter: '*'", async () => {
    const reply = await (await admin()).command({ getParameter: '*' });
    expect(reply).toHaveProperty('requireApiVersion', false);
  });

  it('answers an unknown parameter with 72 InvalidOptions', async () => {
    const error = await (await admin()).command({ getParameter: 1, noSuchParameter: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 72 });
  });

  it('counts the open connections in serverStatus', async () => {
    const reply = await (await admin()).command({ serverStatus: 1 });
    expect(reply).toMatchObject({ process: 'mongod', version: '7.0.0', ok: 1 });
    expect(reply.connections.current).toBeGreaterThanOrEqual(1);
    expect(reply.connections.totalCreated).toBeGreaterThanOrEqual(reply.connections.current);
  });

  it('reports no authenticated users in connectionStatus', async () => {
    const reply = await (await admin()).command({ connectionStatus: 1 });
    expect(reply.authInfo).toEqual({ authenticatedUsers: [], authenticatedUserRoles: [] });
  });

  it('lists no databases on a fresh in-memory engine', async () => {
    const fresh = await startTestEngine();
    const client = await fresh.client();
    const reply = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
    await fresh.stop();
    expect(reply).toEqual({ databases: [], ok: 1 });
  });

  it('lists a database once it holds a collection, with size and emptiness', async () => {
    const client = await t.client();
    await client.db('listed').createCollection('things');
    const reply = await client.db('admin').command({ listDatabases: 1 });
    expect(reply.databases).toContainEqual({ name: 'listed', sizeOnDisk: expect.any(Number), empty: false });
  });

  it('filters listDatabases by name', async () => {
    const client = await t.client();
    await client.db('kept').createCollection('a');
    await client.db('skipped').createCollection('a');
    const reply = await client.db('admin').command({ listDatabases: 1, nameOnly: true, filter: { name: 'kept' } });
    expect(reply.databases).toEqual([{ name: 'kept' }]);
  });

  it("tells the client its own address through whatsmyuri", async () => {
    const reply = await (await admin()).command({ whatsmyuri: 1 });
    expect(reply.you).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('accepts endSessions', async () => {
    expect(await (await admin()).command({ endSessions: [] })).toEqual({ ok: 1 });
  });

  it('answers getLog with an empty log', async () => {
    expect(await (await admin()).command({ getLog: 'startupWarnings' })).toEqual({ totalLinesWritten: 0, log: [], ok: 1 });
  });

  it('describes the host through hostInfo', async () => {
    const reply = await (await admin()).command({ hostInfo: 1 });
    expect(reply.system.numCores).toBeGreaterThan(0);
  });
});
