import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeOpMsg, parseOpMsg } from '../../../src/engine/wire/index.js';
import { RawWireClient } from './raw-wire-client.js';
import { startTestEngine, type TestEngine } from './test-engine.js';

const pingMessage = (requestId: number, extra: { checksum?: boolean; moreToCome?: boolean } = {}) =>
  encodeOpMsg({ requestId, body: { ping: 1, $db: 'admin' }, ...extra });

describe('connections: a bad client is disconnected, the others carry on', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine();
  });
  afterAll(() => t.stop());

  async function expectClosedAfterSending(bytes: Buffer): Promise<void> {
    const raw = await RawWireClient.connect(t.engine.port);
    raw.send(bytes);
    await expect(raw.nextFrame()).rejects.toThrow(/closed/);
  }

  it('closes a connection that sends a length shorter than a header', async () => {
    const garbage = Buffer.alloc(16, 0x41);
    garbage.writeInt32LE(3, 0);
    await expectClosedAfterSending(garbage);
  });

  it('closes a connection that announces a frame over 48,000,000 bytes', async () => {
    const header = Buffer.alloc(16);
    header.writeInt32LE(48_000_001, 0);
    await expectClosedAfterSending(header);
  });

  it('closes a connection that sends an unsupported opcode', async () => {
    const frame = Buffer.concat(pingMessage(1));
    frame.writeInt32LE(2012, 12); // OP_COMPRESSED: we never advertise compression
    await expectClosedAfterSending(frame);
  });

  it('closes a connection whose OP_MSG checksum is wrong', async () => {
    const frame = Buffer.concat(pingMessage(1, { checksum: true }));
    frame[frame.length - 2] ^= 0x55;
    await expectClosedAfterSending(frame);
  });

  it('logs one line per closed connection, without document contents', async () => {
    const before = t.logs.length;
    const frame = Buffer.concat(encodeOpMsg({ requestId: 1, body: { secret: 'hunter2', $db: 'admin' } }));
    frame[frame.length - 1] = 9;
    await expectClosedAfterSending(frame);
    const lines = t.logs.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('hunter2');
  });

  it('keeps serving driver clients while bad connections are closed', async () => {
    const client = await t.client();
    const garbage = Buffer.alloc(32, 0xff);
    await expectClosedAfterSending(garbage);
    expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 });
  });

  it('answers an OP_MSG that carries a valid checksum', async () => {
    const raw = await RawWireClient.connect(t.engine.port);
    raw.send(pingMessage(21, { checksum: true }));
    const reply = parseOpMsg(await raw.nextFrame());
    raw.close();
    expect(reply.responseTo).toBe(21);
    expect(reply.body).toEqual({ ok: 1 });
  });

  it('sends no reply to a moreToCome message', async () => {
    const raw = await RawWireClient.connect(t.engine.port);
    raw.send([...pingMessage(31, { moreToCome: true }), ...pingMessage(32)]);
    const first = parseOpMsg(await raw.nextFrame());
    raw.close();
    expect(first.responseTo).toBe(32);
  });

  it('answers pipelined messages in order', async () => {
    const raw = await RawWireClient.connect(t.engine.port);
    raw.send([...pingMessage(41), ...pingMessage(42), ...pingMessage(43)]);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(parseOpMsg(await raw.nextFrame()).responseTo);
    raw.close();
    expect(ids).toEqual([41, 42, 43]);
  });

  it('answers an OP_MSG without $db with error 40571', async () => {
    const raw = await RawWireClient.connect(t.engine.port);
    raw.send(encodeOpMsg({ requestId: 51, body: { ping: 1 } }));
    const reply = parseOpMsg(await raw.nextFrame());
    raw.close();
    expect(reply.body).toMatchObject({ ok: 0, code: 40571 });
  });

  it('applies unacknowledged (w: 0) writes in order before the next command on the same connection', async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => t.client({ maxPoolSize: 1 })));
    const counts = await Promise.all(
      clients.map(async (client, c) => {
        const coll = client.db('ordered').collection(`c${c}`);
        for (let i = 0; i < 50; i++) await coll.insertOne({ i }, { writeConcern: { w: 0 } });
        return coll.countDocuments();
      }),
    );
    expect(counts).toEqual([50, 50, 50, 50]);
  });

  it('serves many concurrent clients', async () => {
    const clients = await Promise.all(Array.from({ length: 12 }, () => t.client({ maxPoolSize: 4 })));
    const replies = await Promise.all(clients.flatMap((c) => Array.from({ length: 10 }, () => c.db('admin').command({ ping: 1 }))));
    expect(replies.every((r) => r.ok === 1)).toBe(true);
  });
});

describe('shutdown', () => {
  it('closes open client connections and resolves close()', async () => {
    const t = await startTestEngine();
    const raw = await RawWireClient.connect(t.engine.port);
    raw.send(pingMessage(1));
    await raw.nextFrame();
    await t.engine.close();
    await raw.closed;
    await expect(raw.nextFrame()).rejects.toThrow(/closed/);
  });
});
