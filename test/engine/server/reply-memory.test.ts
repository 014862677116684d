import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplyMemory } from '../../../src/engine/server/reply-memory.js';
import { encodeOpMsg, FrameReader, parseOpMsg } from '../../../src/engine/wire/index.js';
import { startTestEngine, type TestEngine } from './test-engine.js';

/**
 * A connection encodes and writes its replies in memory it reuses
 * (reply-memory.ts): a reply the socket still holds must never be
 * overwritten by the next one.
 */

/** Whether two Buffers start at the same byte of the same memory. */
const sameMemory = (a: Buffer, b: Buffer) => a.buffer === b.buffer && a.byteOffset === b.byteOffset;

describe('ReplyMemory', () => {
  it('hands out the same memory again for the next reply, bodies and frames apart', () => {
    const memory = new ReplyMemory(64 * 1024);
    const body = memory.body(11_000);
    const frame = memory.frame([Buffer.alloc(21, 1), body], 11_021);
    memory.written(frame, 0);
    expect(sameMemory(memory.body(600), body)).toBe(true);
    expect(sameMemory(memory.frame([Buffer.alloc(10, 2)], 10), frame)).toBe(true);
    expect(frame.buffer).not.toBe(body.buffer);
  });

  it('copies the parts of a frame in order', () => {
    const memory = new ReplyMemory(64 * 1024);
    const frame = memory.frame([Buffer.from('head'), Buffer.from('-'), Buffer.from('body')], 9);
    expect(frame.toString()).toBe('head-body');
  });

  it('gives up a frame the socket still holds: the next frame is other memory', () => {
    const memory = new ReplyMemory(64 * 1024);
    const held = memory.frame([Buffer.alloc(5000, 1)], 5000);
    memory.written(held, 5000);
    const next = memory.frame([Buffer.alloc(5000, 2)], 5000);
    expect(sameMemory(next, held)).toBe(false);
    expect(held.every((byte) => byte === 1)).toBe(true);
  });

  it('gives a reply larger than its bound memory of its own', () => {
    const memory = new ReplyMemory(1024);
    const first = memory.body(2048);
    expect(sameMemory(memory.body(2048), first)).toBe(false);
  });

  it('keeps no body whose frame would not fit the frame area (such a frame is written from its parts)', () => {
    const memory = new ReplyMemory(64 * 1024);
    const nearTheBound = memory.body(64 * 1024 - 10);
    expect(sameMemory(memory.body(64 * 1024 - 10), nearTheBound)).toBe(false);
  });
});

describe('replies that wait in the socket while later ones are encoded', () => {
  let test: TestEngine;
  const DOCS = 240;
  /** About 50 KiB a document: each reply fits one frame area; all of them far more than the socket buffers take. */
  const payload = (i: number) => String.fromCharCode(65 + (i % 26)).repeat(50_000);

  beforeAll(async () => {
    test = await startTestEngine();
    const client = await test.client();
    await client.db('reply_memory').collection<{ _id: number; payload: string }>('big').insertMany(Array.from({ length: DOCS }, (_, i) => ({ _id: i, payload: payload(i) })));
  });
  afterAll(() => test.stop());

  it('each pipelined find, read only once all were sent, answers its own document intact', async () => {
    const socket = net.connect(test.engine.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause(); // read nothing yet: the engine's writes back up
    for (let i = 0; i < DOCS; i++) {
      socket.write(Buffer.concat(encodeOpMsg({ requestId: i + 1, body: { find: 'big', filter: { _id: i }, $db: 'reply_memory' } })));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));

    const reader = new FrameReader();
    const replies: Buffer[] = [];
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        replies.push(...reader.push(chunk));
        if (replies.length === DOCS) resolve();
      });
      socket.resume();
    });
    socket.destroy();
    replies.forEach((frame, i) => {
      const reply = parseOpMsg(frame);
      expect(reply.responseTo).toBe(i + 1);
      const [doc] = (reply.body.cursor as { firstBatch: { _id: number; payload: string }[] }).firstBatch;
      expect(doc?._id).toBe(i);
      expect(doc?.payload === payload(i), `reply ${i} intact`).toBe(true);
    });
  });
});
