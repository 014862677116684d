import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeOpQuery, parseOpReply } from '../../../src/engine/wire/index.js';
import { RawWireClient } from './raw-wire-client.js';
import { startTestEngine, type TestEngine } from './test-engine.js';

describe('handshake: the driver sees a writable standalone mongod 7.0', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine();
  });
  afterAll(() => t.stop());

  it('gives a mongodb:// URI on 127.0.0.1 and the chosen port', () => {
    expect(t.engine.uri).toBe(`mongodb://127.0.0.1:${t.engine.port}/`);
    expect(t.engine.port).toBeGreaterThan(0);
  });

  it('lets the official driver connect and ping', async () => {
    const client = await t.client();
    expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 });
  });

  it('answers hello as a writable primary with session support', async () => {
    const client = await t.client();
    const hello = await client.db('admin').command({ hello: 1 });
    expect(hello).toMatchObject({
      isWritablePrimary: true,
      maxBsonObjectSize: 16777216,
      maxMessageSizeBytes: 48000000,
      maxWriteBatchSize: 100000,
      logicalSessionTimeoutMinutes: 30,
      minWireVersion: 0,
      maxWireVersion: 21,
      readOnly: false,
      ok: 1,
    });
    expect(hello.localTime).toBeInstanceOf(Date);
    expect(typeof hello.connectionId).toBe('number');
  });

  it('claims neither a replica set nor streaming heartbeats', async () => {
    const client = await t.client();
    const hello = await client.db('admin').command({ hello: 1 });
    expect(hello).not.toHaveProperty('setName');
    expect(hello).not.toHaveProperty('hosts');
    expect(hello).not.toHaveProperty('topologyVersion');
  });

  it('answers the legacy isMaster spelling with ismaster: true', async () => {
    const client = await t.client();
    expect(await client.db('admin').command({ isMaster: 1 })).toMatchObject({ ismaster: true, ok: 1 });
  });

  it('reports version 7.0.0 in buildInfo', async () => {
    const client = await t.client();
    const info = await client.db('admin').command({ buildInfo: 1 });
    expect(info).toMatchObject({ version: '7.0.0', versionArray: [7, 0, 0, 0], bits: 64, ok: 1 });
  });

  it('answers an OP_QUERY isMaster with an OP_REPLY', async () => {
    const raw = await RawWireClient.connect(t.engine.port);
    raw.send(encodeOpQuery({ requestId: 11, fullCollectionName: 'admin.$cmd', query: { isMaster: 1, helloOk: true } }));
    const reply = parseOpReply(await raw.nextFrame());
    raw.close();
    expect(reply.responseTo).toBe(11);
    expect(reply.documents[0]).toMatchObject({ ismaster: true, helloOk: true, ok: 1 });
  });

  it('refuses other commands over OP_QUERY with UnsupportedOpQueryCommand', async () => {
    const raw = await RawWireClient.connect(t.engine.port);
    raw.send(encodeOpQuery({ requestId: 12, fullCollectionName: 'admin.$cmd', query: { ping: 1 } }));
    const reply = parseOpReply(await raw.nextFrame());
    raw.close();
    expect(reply.documents[0]).toMatchObject({ ok: 0, code: 352, codeName: 'UnsupportedOpQueryCommand' });
  });
});
