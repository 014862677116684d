import { Double, Int32, Long } from 'bson';
import { describe, expect, it } from 'vitest';
import {
  crc32c,
  encodeOpMsg,
  encodeOpQuery,
  encodeOpReply,
  FrameReader,
  MsgFlag,
  parseOpMsg,
  parseOpQuery,
  parseOpReply,
  WireProtocolError,
} from '../../../src/engine/wire/index.js';

const frame = (parts: Uint8Array[]): Buffer => Buffer.concat(parts);

describe('crc32c', () => {
  it('matches the standard check value of "123456789"', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('continues across parts as over the whole', () => {
    const whole = Buffer.from('hello, wire protocol');
    expect(crc32c(whole.subarray(7), crc32c(whole.subarray(0, 7)))).toBe(crc32c(whole));
  });
});

describe('OP_MSG', () => {
  it('round-trips a body with its request id and flags', () => {
    const bytes = frame(encodeOpMsg({ requestId: 7, body: { ping: 1, $db: 'admin' }, exhaustAllowed: true }));
    const msg = parseOpMsg(bytes);
    expect(msg.requestId).toBe(7);
    expect(msg.body).toEqual({ ping: 1, $db: 'admin' });
    expect(msg.exhaustAllowed).toBe(true);
    expect(msg.moreToCome).toBe(false);
  });

  it('merges kind-1 document sequences into the body as array fields', () => {
    const bytes = frame(
      encodeOpMsg({
        requestId: 1,
        body: { insert: 'users', $db: 'app' },
        sequences: { documents: [{ _id: 1 }, { _id: 2 }], other: [] },
      }),
    );
    expect(parseOpMsg(bytes).body).toEqual({ insert: 'users', $db: 'app', documents: [{ _id: 1 }, { _id: 2 }], other: [] });
  });

  it("keeps a sequence named '__proto__' as a plain field", () => {
    const bytes = frame(encodeOpMsg({ requestId: 1, body: { insert: 'x' }, sequences: { ['__proto__']: [{ a: 1 }] } }));
    const { body } = parseOpMsg(bytes);
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(body, '__proto__')?.value).toEqual([{ a: 1 }]);
  });

  it('reports moreToCome', () => {
    const bytes = frame(encodeOpMsg({ requestId: 1, body: { insert: 'x', $db: 'a' }, moreToCome: true }));
    expect(parseOpMsg(bytes).moreToCome).toBe(true);
  });

  it('accepts a message whose CRC-32C checksum is valid', () => {
    const bytes = frame(encodeOpMsg({ requestId: 3, body: { ping: 1, $db: 'admin' }, sequences: { d: [{ a: 1 }] }, checksum: true }));
    const msg = parseOpMsg(bytes);
    expect(msg.checksumPresent).toBe(true);
    expect(msg.body).toEqual({ ping: 1, $db: 'admin', d: [{ a: 1 }] });
  });

  it('rejects a message whose checksum does not match', () => {
    const bytes = frame(encodeOpMsg({ requestId: 3, body: { ping: 1, $db: 'admin' }, checksum: true }));
    bytes[bytes.length - 1] ^= 0xff;
    expect(() => parseOpMsg(bytes)).toThrow(/checksum/);
  });

  it('rejects unknown required flag bits', () => {
    const bytes = frame(encodeOpMsg({ requestId: 1, body: { ping: 1 } }));
    bytes.writeUInt32LE(1 << 5, 16);
    expect(() => parseOpMsg(bytes)).toThrow(WireProtocolError);
  });

  it('rejects an unknown section kind', () => {
    const bytes = frame(encodeOpMsg({ requestId: 1, body: { ping: 1 } }));
    bytes[20] = 2;
    expect(() => parseOpMsg(bytes)).toThrow(/section kind 2/);
  });

  it('rejects a field given both in the body and as a sequence', () => {
    const bytes = frame(encodeOpMsg({ requestId: 1, body: { insert: 'x', documents: [] }, sequences: { documents: [{}] } }));
    expect(() => parseOpMsg(bytes)).toThrow(/both in the body and as a sequence/);
  });

  it('rejects a body whose BSON length overruns the message', () => {
    const bytes = frame(encodeOpMsg({ requestId: 1, body: { ping: 1 } }));
    bytes.writeInt32LE(10_000, 21);
    expect(() => parseOpMsg(bytes)).toThrow(WireProtocolError);
  });

  it('rejects a body that is not valid BSON', () => {
    const bytes = frame(encodeOpMsg({ requestId: 1, body: { ping: 1 } }));
    bytes[bytes.length - 1] = 7; // a document must end with a NUL byte
    expect(() => parseOpMsg(bytes)).toThrow(/invalid BSON/);
  });

  it('decodes numbers into the engine value model, keeping their BSON types', () => {
    const bytes = frame(encodeOpMsg({ requestId: 1, body: { i: new Int32(5), d: new Double(5), l: Long.fromNumber(5), f: 1.5 } }));
    const { body } = parseOpMsg(bytes);
    expect(body.i).toBe(5);
    expect(body.d).toBeInstanceOf(Double);
    expect(body.l).toBeInstanceOf(Long);
    expect(body.f).toBe(1.5);
  });
});

describe('OP_QUERY and OP_REPLY', () => {
  it('parses an OP_QUERY command on admin.$cmd', () => {
    const bytes = frame(encodeOpQuery({ requestId: 9, fullCollectionName: 'admin.$cmd', query: { isMaster: 1, helloOk: true } }));
    const query = parseOpQuery(bytes);
    expect(query.requestId).toBe(9);
    expect(query.fullCollectionName).toBe('admin.$cmd');
    expect(query.numberToReturn).toBe(-1);
    expect(query.query).toEqual({ isMaster: 1, helloOk: true });
  });

  it('round-trips an OP_REPLY carrying one document', () => {
    const bytes = frame(encodeOpReply({ requestId: 2, responseTo: 9, documents: [{ ismaster: true, ok: 1 }] }));
    const reply = parseOpReply(bytes);
    expect(reply.responseTo).toBe(9);
    expect(reply.cursorId).toBe(0n);
    expect(reply.documents).toEqual([{ ismaster: true, ok: 1 }]);
  });

  it('rejects an OP_QUERY whose bytes after the query are not a document', () => {
    const bytes = Buffer.concat([frame(encodeOpQuery({ requestId: 1, fullCollectionName: 'a.$cmd', query: { hello: 1 } })), Buffer.alloc(3)]);
    bytes.writeInt32LE(bytes.length, 0);
    expect(() => parseOpQuery(bytes)).toThrow(/field selector/);
  });
});

describe('FrameReader', () => {
  const ping = frame(encodeOpMsg({ requestId: 1, body: { ping: 1, $db: 'admin' } }));

  it('yields a whole message from a single chunk', () => {
    expect(new FrameReader().push(ping)).toEqual([ping]);
  });

  it('reassembles a message delivered one byte at a time', () => {
    const reader = new FrameReader();
    const frames: Buffer[] = [];
    for (let i = 0; i < ping.length; i++) frames.push(...reader.push(ping.subarray(i, i + 1)));
    expect(frames).toEqual([ping]);
    expect(reader.buffered).toBe(0);
  });

  it('splits several messages and a partial one in the same chunk', () => {
    const reader = new FrameReader();
    const stream = Buffer.concat([ping, ping, ping]);
    const first = reader.push(stream.subarray(0, ping.length * 2 + 5));
    const rest = reader.push(stream.subarray(ping.length * 2 + 5));
    expect(first).toHaveLength(2);
    expect(rest).toEqual([ping]);
  });

  it('rejects a frame longer than the maximum message size', () => {
    const header = Buffer.alloc(16);
    header.writeInt32LE(48_000_001, 0);
    expect(() => new FrameReader().push(header)).toThrow(/exceeds the maximum/);
  });

  it('rejects a frame shorter than a header', () => {
    const header = Buffer.alloc(16);
    header.writeInt32LE(3, 0);
    expect(() => new FrameReader().push(header)).toThrow(WireProtocolError);
  });

  it('rejects an oversized length announced across two chunks', () => {
    const header = Buffer.alloc(8);
    header.writeInt32LE(100_000_000, 0);
    const reader = new FrameReader();
    expect(reader.push(header.subarray(0, 2))).toEqual([]);
    expect(() => reader.push(header.subarray(2))).toThrow(/exceeds the maximum/);
  });
});
