import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  Binary, BSON, BSONRegExp, BSONSymbol, Code, DBRef, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID,
} from 'bson';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher, type CommandContext, type EngineState } from '../../../src/engine/commands/index.js';
import { CursorStore, firstBatchReply } from '../../../src/engine/cursors/index.js';
import type { Document } from '../../../src/engine/query/types.js';
import { createMemoryStorage, openLmdbStorage, storedBytesOf, type Storage } from '../../../src/engine/storage/index.js';
import { encodeDocument } from '../../../src/engine/wire/index.js';
import { tempDir } from '../storage/storage-kinds.js';

/**
 * find and getMore replies splice the stored bytes of the documents a scan
 * decoded. On the wire they must be exactly what BSON.serialize writes for
 * the same reply object, and whatever builds or changes a document between
 * the scan and the reply (projection, view, aggregate stage, $meta) must
 * reach the client as changed.
 */
const dispatch = createDispatcher();

function contextOn(storage: Storage): CommandContext {
  const engine = { storage, cursors: new CursorStore(), startedAt: new Date(), version: '7.0.0', connections: () => 1, connectionsCreated: () => 1 } as EngineState;
  return { engine, connection: { id: 1, remoteAddress: '127.0.0.1:1' }, db: 'db' };
}

async function run(ctx: CommandContext, body: Document): Promise<Document> {
  const reply = await dispatch({ ...body, $db: 'db' }, ctx);
  if (reply.ok !== 1) throw new Error(`command failed: ${JSON.stringify(reply)}`);
  return reply;
}

/** A reply as the client decodes it. */
interface Sent {
  cursor: { firstBatch: Document[]; nextBatch: Document[]; id: Long; ns: string };
  note?: unknown;
}

/** The wire bytes, checked against BSON.serialize of the same reply (which ignores the encoder). */
function wire(reply: Document): Sent {
  const bytes = Buffer.from(encodeDocument(reply));
  expect(bytes.equals(Buffer.from(BSON.serialize(reply)))).toBe(true);
  return BSON.deserialize(bytes, { promoteLongs: false }) as Sent;
}

const batchOf = (reply: Document): Document[] => {
  const cursor = reply.cursor as Document;
  return (cursor.firstBatch ?? cursor.nextBatch) as Document[];
};
/** Whether the reply will splice stored bytes (ask before anything reads its batch in process). */
const spliced = (reply: Document) => (reply.cursor as { pristineBytes?: unknown }).pristineBytes !== undefined;

/** Every BSON type the engine stores, nested in documents and arrays. */
function variedDocument(i: number): Document {
  return {
    _id: i % 3 === 0 ? new ObjectId() : i,
    '2': 'an integer-like key',
    str: `é✓ ${'x'.repeat(i % 5)} \u{1F600}`,
    int: new Int32(i),
    dbl: new Double(i + 0.5),
    whole: new Double(3),
    negZero: new Double(-0),
    nan: Number.NaN,
    inf: Number.POSITIVE_INFINITY,
    long: Long.fromString('9007199254740993'),
    dec: Decimal128.fromString('1.10'),
    bool: i % 2 === 0,
    nil: null,
    date: new Date(1_700_000_000_000 + i),
    oid: new ObjectId('64b7f0c2a1b2c3d4e5f60718'),
    bin: new Binary(Buffer.from([1, 2, 3, i & 255]), 0),
    oldBin: new Binary(Buffer.from('ab'), 2),
    uuid: new UUID('5b9f9e1c-3c7e-4a8e-9f6d-2b1c0d9e8f7a').toBinary(),
    regex: new BSONRegExp('^a.c$', 'imx'),
    ts: new Timestamp({ t: 1_700_000_000, i }),
    min: new MinKey(),
    max: new MaxKey(),
    code: new Code('function () { return 1; }'),
    codeScope: new Code('x + 1', { x: 1 }),
    sym: new BSONSymbol('sym'),
    ref: new DBRef('other', new ObjectId('64b7f0c2a1b2c3d4e5f60719'), 'db'),
    nested: { a: { b: { c: [1, { d: [[], {}, [new Int32(2)]] }] } } },
    arr: Array.from({ length: 12 }, (_, k) => (k % 2 ? { k } : k)),
  };
}

describe('find and getMore replies from stored bytes', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function seeded(count: number, storage: Storage = createMemoryStorage()): Promise<CommandContext> {
    const ctx = contextOn(storage);
    await run(ctx, { insert: 'things', documents: Array.from({ length: count }, (_, i) => variedDocument(i)) });
    return ctx;
  }

  it('writes a batch of varied documents as BSON.serialize does, in process still an ordinary reply', async () => {
    const ctx = await seeded(15);
    const reply = await run(ctx, { find: 'things', filter: {}, batchSize: 200 });
    expect(spliced(reply)).toBe(true);
    const sent = wire(reply);
    expect([sent.cursor.firstBatch.length, (sent.cursor.id as Long).isZero()]).toEqual([15, true]);
    // Read in process, the batch is whole documents (the scan decoded only what the filter reads).
    expect(batchOf(reply).map((doc) => Object.keys(doc))).toEqual(Array.from({ length: 15 }, (_, i) => Object.keys(variedDocument(i))));
  });

  it('splices first batches that leave a cursor open and getMore batches past 10 and 100 documents', async () => {
    const ctx = await seeded(260);
    const first = await run(ctx, { find: 'things', filter: { int: { $gte: 0 } }, batchSize: 11 });
    const id = (first.cursor as Document).id as Long;
    expect([spliced(first), id.isZero(), wire(first).cursor.firstBatch.length]).toEqual([true, false, 11]);
    const next = await run(ctx, { getMore: id, collection: 'things', batchSize: 120 });
    expect([spliced(next), wire(next).cursor.nextBatch.length, ((next.cursor as Document).id as Long).equals(id)]).toEqual([true, 120, true]);
    const rest = await run(ctx, { getMore: id, collection: 'things' });
    const sent = wire(rest);
    expect([sent.cursor.nextBatch.length, (sent.cursor.id as Long).isZero(), sent.cursor.ns]).toEqual([129, true, 'db.things']);
  });

  it('writes a namespace outside ASCII, and index-sorted and backwards reads', async () => {
    const ctx = contextOn(createMemoryStorage());
    await run(ctx, { insert: 'chosé✓', documents: [{ _id: 2, v: 'b' }, { _id: 1, v: 'a' }, { _id: 3, v: 'c' }] });
    const sorted = await run(ctx, { find: 'chosé✓', filter: { _id: { $gt: 1 } }, sort: { _id: 1 }, limit: 21 });
    expect(spliced(sorted)).toBe(true);
    const sent = wire(sorted).cursor;
    expect([sent.firstBatch, sent.ns]).toEqual([[{ _id: 2, v: 'b' }, { _id: 3, v: 'c' }], 'db.chosé✓']);
    const backwards = await run(ctx, { find: 'chosé✓', sort: { $natural: -1 } });
    expect(wire(backwards).cursor.firstBatch.map((d: Document) => d._id)).toEqual([3, 1, 2]);
  });

  it('filters and sorts on the fields it decodes, and sends and hands out whole documents', async () => {
    const ctx = contextOn(createMemoryStorage());
    const docs = Array.from({ length: 30 }, (_, i) => ({ _id: i, t: i % 3, n: { v: 30 - i }, tags: [`g${i % 2}`], body: 'x'.repeat(i) }));
    await run(ctx, { insert: 'c', documents: docs });
    await run(ctx, { createIndexes: 'c', indexes: [{ key: { t: 1, _id: 1 }, name: 't_id' }, { key: { t: 1, 'n.v': 1 }, name: 't_nv' }] });
    const whole = (ids: number[]) => ids.map((i) => docs[i]);
    const page = await run(ctx, { find: 'c', filter: { t: 1, _id: { $gt: 4 } }, sort: { _id: 1 }, limit: 3 });
    expect(wire(page).cursor.firstBatch).toEqual(whole([7, 10, 13]));
    const dotted = await run(ctx, { find: 'c', filter: { $or: [{ 'n.v': { $lt: 3 } }, { tags: { $elemMatch: { $eq: 'g1' } }, t: 0 }] }, sort: { 'n.v': -1 } });
    expect(wire(dotted).cursor.firstBatch).toEqual(whole([3, 9, 15, 21, 27, 28, 29]));
    const byExpr = await run(ctx, { find: 'c', filter: { $expr: { $gt: [{ $strLenCP: '$body' }, 27] } } });
    expect(wire(byExpr).cursor.firstBatch).toEqual(whole([28, 29]));
    const open = await run(ctx, { find: 'c', filter: { t: 2 }, batchSize: 2 });
    expect(batchOf(open)).toEqual(whole([2, 5]));
    const next = await run(ctx, { getMore: (open.cursor as Document).id, collection: 'c', batchSize: 2 });
    expect(batchOf(next)).toEqual(whole([8, 11]));
  });

  it('scans documents partially when asked, with the whole stored bytes beside them', () => {
    const storage = createMemoryStorage();
    const doc = variedDocument(1);
    storage.insert('db', 'c', doc);
    const [partial] = [...storage.scan('db', 'c', undefined, new Set(['2', 'nested', 'missing', 'str']))];
    expect(Object.keys(partial)).toEqual(['2', 'str', 'nested']);
    expect(Buffer.from(storedBytesOf(partial)!, 'latin1').equals(Buffer.from(BSON.serialize(doc)))).toBe(true);
    // A copy is a new document: it has no stored bytes.
    expect([storedBytesOf({ ...partial }), storedBytesOf(Object.assign({}, partial)), Object.keys(BSON.deserialize(BSON.serialize(partial)))]).toEqual([
      undefined, undefined, ['2', 'str', 'nested'],
    ]);
  });

  it('splices what lmdb stored, after a restart', async () => {
    dir = tempDir('stored-batch-');
    const path = join(dir, 'engine.mdb');
    const first = openLmdbStorage(path);
    await seeded(12, first);
    await first.close();
    const reopened = openLmdbStorage(path);
    try {
      const reply = await run(contextOn(reopened), { find: 'things', filter: {} });
      expect([spliced(reply), wire(reply).cursor.firstBatch.length]).toEqual([true, 12]);
    } finally {
      await reopened.close();
    }
  });

  it('sends a projection as projected', async () => {
    const ctx = await seeded(3);
    const reply = await run(ctx, { find: 'things', filter: {}, projection: { _id: 0, int: 1 } });
    expect([spliced(reply), wire(reply).cursor.firstBatch]).toEqual([false, [0, 1, 2].map((i) => ({ int: i }))]);
  });

  it("sends a view's documents as its pipeline made them, even when a stage changes them", async () => {
    const ctx = contextOn(createMemoryStorage());
    await run(ctx, { insert: 'src', documents: [{ _id: 1, v: 1 }, { _id: 2, v: 2 }] });
    await run(ctx, { create: 'doubled', viewOn: 'src', pipeline: [{ $set: { v: { $multiply: ['$v', 2] }, added: true } }, { $unset: 'x' }] });
    await run(ctx, { create: 'matched', viewOn: 'src', pipeline: [{ $match: { v: { $gt: 1 } } }] });
    const doubled = await run(ctx, { find: 'doubled', filter: {} });
    expect(wire(doubled).cursor.firstBatch).toEqual([{ _id: 1, v: 2, added: true }, { _id: 2, v: 4, added: true }]);
    expect(wire(await run(ctx, { find: 'matched', filter: {} })).cursor.firstBatch).toEqual([{ _id: 2, v: 2 }]);
  });

  it('sends aggregate stages that change documents as changed', async () => {
    const ctx = contextOn(createMemoryStorage());
    await run(ctx, { insert: 'src', documents: [{ _id: 1, v: 1 }, { _id: 2, v: 2 }] });
    const reply = await run(ctx, { aggregate: 'src', pipeline: [{ $addFields: { w: 1 } }, { $set: { v: 0 } }], cursor: {} });
    expect(wire(reply).cursor.firstBatch).toEqual([{ _id: 1, v: 0, w: 1 }, { _id: 2, v: 0, w: 1 }]);
  });

  it('sends text scores a projection asks for, sorted by them', async () => {
    const ctx = contextOn(createMemoryStorage());
    await run(ctx, { insert: 'notes', documents: [{ _id: 1, t: 'apple' }, { _id: 2, t: 'apple apple pie' }, { _id: 3, t: 'pear' }] });
    await run(ctx, { createIndexes: 'notes', indexes: [{ key: { t: 'text' }, name: 't_text' }] });
    const scored = await run(ctx, {
      find: 'notes', filter: { $text: { $search: 'apple' } }, projection: { score: { $meta: 'textScore' } }, sort: { score: { $meta: 'textScore' } },
    });
    const sent = wire(scored).cursor.firstBatch as Document[];
    expect(sent.map((d) => [d._id, typeof (d.score as Double).valueOf()])).toEqual([[2, 'number'], [1, 'number']]);
    // Sorted by score without projecting it: the documents are the stored ones.
    const plain = await run(ctx, { find: 'notes', filter: { $text: { $search: 'apple' } }, sort: { s: { $meta: 'textScore' } } });
    expect([spliced(plain), wire(plain).cursor.firstBatch]).toEqual([true, [{ _id: 2, t: 'apple apple pie' }, { _id: 1, t: 'apple' }]]);
  });

  it('sends documents nearest first for $near, unchanged', async () => {
    const ctx = contextOn(createMemoryStorage());
    await run(ctx, { insert: 'places', documents: [{ _id: 1, at: [5, 5] }, { _id: 2, at: [1, 1] }] });
    await run(ctx, { createIndexes: 'places', indexes: [{ key: { at: '2d' }, name: 'at_2d' }] });
    const reply = await run(ctx, { find: 'places', filter: { at: { $near: [0, 0] } } });
    expect(wire(reply).cursor.firstBatch).toEqual([{ _id: 2, at: [1, 1] }, { _id: 1, at: [5, 5] }]);
  });

  it('sends the current version of documents updated while a cursor is open', async () => {
    const ctx = contextOn(createMemoryStorage());
    await run(ctx, { insert: 'c', documents: [1, 2, 3, 4, 5].map((i) => ({ _id: i, v: i })) });
    const first = await run(ctx, { find: 'c', filter: {}, sort: { _id: 1 }, batchSize: 2 });
    await run(ctx, { update: 'c', updates: [{ q: { _id: 4 }, u: { $set: { v: 40, grown: 'x'.repeat(50) } } }] });
    await run(ctx, { findAndModify: 'c', query: { _id: 5 }, update: { $inc: { v: 1 } } });
    const next = await run(ctx, { getMore: (first.cursor as Document).id, collection: 'c' });
    expect(wire(next).cursor.nextBatch).toEqual([{ _id: 3, v: 3 }, { _id: 4, v: 40, grown: 'x'.repeat(50) }, { _id: 5, v: 6 }]);
  });

  it('serializes the documents of a cursor not opened over unchanged scans, even ones a stage changed in place', async () => {
    const storage = createMemoryStorage();
    storage.insert('db', 'c', { _id: 1, v: 1 });
    const changed = [...storage.scan('db', 'c')].map((doc) => Object.assign(doc, { v: 2 }));
    const reply = firstBatchReply('db.c', new CursorStore().open('db.c', changed));
    expect([storedBytesOf(changed[0]) !== undefined, wire(reply).cursor.firstBatch]).toEqual([true, [{ _id: 1, v: 2 }]]);
  });

  it('encodes a reply changed after it was built by its current content', async () => {
    const ctx = await seeded(2);
    const reply = await run(ctx, { find: 'things', filter: {} });
    reply.note = 'added';
    batchOf(reply).push({ _id: 'not stored' });
    const sent = wire(reply);
    expect([sent.note, sent.cursor.firstBatch.length]).toEqual(['added', 3]);
  });
});
