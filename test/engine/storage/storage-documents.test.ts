import { describe, expect, it } from 'vitest';
import { Binary, BSONRegExp, Decimal128, Double, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID } from 'bson';
import { storedBytesOf } from '../../../src/engine/storage/index.js';
import { bufferMemoryAfterGc } from './buffer-memory.js';
import { storageKinds, storagePerTest, thrown } from './storage-kinds.js';

describe.each(storageKinds)('$name storage: documents', (kind) => {
  const { storage: s, harness: h } = storagePerTest(kind);

  it('inserts into an implicitly created collection and finds the document by _id', () => {
    s.insert('app', 'users', { _id: 1, name: 'ann' });
    expect(s.collection('app', 'users')?.name).toBe('users');
    expect(s.findById('app', 'users', 1)).toEqual({ _id: 1, name: 'ann' });
  });

  it('finds by an equal _id of another numeric type', () => {
    s.insert('app', 'users', { _id: 2, name: 'bob' });
    expect(s.findById('app', 'users', Long.fromNumber(2))?.name).toBe('bob');
    expect(s.findById('app', 'users', new Double(2))?.name).toBe('bob');
    expect(s.findById('app', 'users', Decimal128.fromString('2.00'))?.name).toBe('bob');
  });

  it('gives an ObjectId to a document without _id', () => {
    const doc: Record<string, unknown> = { name: 'x' };
    s.insert('app', 'users', doc);
    expect(doc._id).toBeInstanceOf(ObjectId);
    expect(s.findById('app', 'users', doc._id)?.name).toBe('x');
  });

  it('returns private copies: mutating a result or the inserted object changes nothing stored', () => {
    const doc = { _id: 1, tags: ['a'], nested: { n: 1 } };
    s.insert('app', 'c', doc);
    doc.tags.push('mutated');
    const copy = s.findById('app', 'c', 1)!;
    (copy.nested as { n: number }).n = 99;
    (copy.tags as string[]).push('again');
    const [scanned] = [...s.scan('app', 'c')];
    (scanned!.tags as string[]).length = 0;
    expect(s.findById('app', 'c', 1)).toEqual({ _id: 1, tags: ['a'], nested: { n: 1 } });
  });

  it('rejects a second document with the same _id as DuplicateKey on _id_', () => {
    s.insert('app', 'c', { _id: 'k', v: 1 });
    const err = thrown(() => s.insert('app', 'c', { _id: 'k', v: 2 }));
    expect(err.code).toBe(11000);
    expect(err.message).toBe('E11000 duplicate key error collection: app.c index: _id_ dup key: { _id: "k" }');
    expect(s.findById('app', 'c', 'k')?.v).toBe(1);
  });

  it('refuses a document over the 16MB limit and keeps nothing', () => {
    const err = thrown(() => s.insert('app', 'c', { _id: 1, big: 'x'.repeat(17 * 1024 * 1024) }));
    expect(err.code).toBe(10334);
    expect(s.count('app', 'c')).toBe(0);
  });

  it('replaces a document by _id', () => {
    s.insert('app', 'c', { _id: 1, v: 1 });
    s.replace('app', 'c', { _id: 1, v: 2, w: true });
    expect(s.findById('app', 'c', 1)).toEqual({ _id: 1, v: 2, w: true });
    expect(s.count('app', 'c')).toBe(1);
  });

  it('refuses to replace a document that does not exist (NoSuchKey 4)', () => {
    s.ensureCollection('app', 'c');
    expect(thrown(() => s.replace('app', 'c', { _id: 9 })).code).toBe(4);
  });

  it('refuses to replace in a missing collection (NamespaceNotFound 26)', () => {
    expect(thrown(() => s.replace('app', 'none', { _id: 9 })).code).toBe(26);
  });

  it('removes a document and reports whether it existed', () => {
    s.insert('app', 'c', { _id: 1 });
    expect(s.remove('app', 'c', 1)).toBe(true);
    expect(s.remove('app', 'c', 1)).toBe(false);
    expect(s.findById('app', 'c', 1)).toBeUndefined();
    expect(s.count('app', 'c')).toBe(0);
  });

  it('scans the whole collection in natural (insertion) order, as a collection scan does', () => {
    for (const id of [5, 1, 'b', 3, 'a']) s.insert('app', 'c', { _id: id });
    s.replace('app', 'c', { _id: 1, changed: true });
    expect([...s.scan('app', 'c')].map((d) => d._id)).toEqual([5, 1, 'b', 3, 'a']);
  });

  it('scans through the _id index in _id order', () => {
    for (const id of [5, 1, 'b', 3, 'a']) s.insert('app', 'c', { _id: id });
    expect([...s.scan('app', 'c', { index: '_id_', range: {} })].map((d) => d._id)).toEqual([1, 3, 5, 'a', 'b']);
  });

  it('puts a removed and re-inserted document at the end of natural order', () => {
    for (const id of [3, 1, 2]) s.insert('app', 'c', { _id: id });
    s.remove('app', 'c', 3);
    s.insert('app', 'c', { _id: 3 });
    expect([...s.scan('app', 'c')].map((d) => d._id)).toEqual([1, 2, 3]);
  });

  it('keeps a scan fixed when the collection changes during iteration', () => {
    for (let i = 0; i < 5; i++) s.insert('app', 'c', { _id: i });
    const seen: unknown[] = [];
    for (const doc of s.scan('app', 'c')) {
      seen.push(doc._id);
      s.insert('app', 'c', { _id: 100 + seen.length });
    }
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('reads each scanned document when reached: removed ones are skipped, replaced ones are current', () => {
    for (let i = 0; i < 4; i++) s.insert('app', 'c', { _id: i, v: i });
    const scan = s.scan('app', 'c')[Symbol.iterator]();
    const first = scan.next().value;
    s.remove('app', 'c', 2);
    s.replace('app', 'c', { _id: 3, v: 30 });
    expect([first, ...{ [Symbol.iterator]: () => scan }]).toEqual([
      { _id: 0, v: 0 },
      { _id: 1, v: 1 },
      { _id: 3, v: 30 },
    ]);
  });

  it('scans a missing collection as empty', () => {
    expect([...s.scan('app', 'missing')]).toEqual([]);
    expect(s.count('app', 'missing')).toBe(0);
  });

  it('round-trips every BSON type exactly', () => {
    const doc = {
      _id: new ObjectId('65a1b2c3d4e5f60718293a4b'),
      int: 42,
      negInt: -7,
      double: 1.5,
      integralDouble: new Double(3),
      long: Long.fromString('9007199254740993'),
      decimal: Decimal128.fromString('1234.5678901234567890'),
      date: new Date('2026-01-02T03:04:05.678Z'),
      bin: new Binary(Buffer.from([1, 2, 3]), 0),
      str: 'héllo',
      bool: false,
      nul: null,
      regex: new BSONRegExp('^a', 'i'),
      ts: new Timestamp({ t: 5, i: 6 }),
      min: new MinKey(),
      max: new MaxKey(),
      nested: { arr: [1, [2, [3, new Double(4)]], { deep: Long.fromNumber(5) }], empty: {} },
    };
    s.insert('app', 'types', doc);
    const back = s.findById('app', 'types', doc._id)!;
    expect(back).toEqual(doc);
    expect(back.regex).toBeInstanceOf(BSONRegExp);
    expect(back.integralDouble).toBeInstanceOf(Double);
    expect(typeof back.int).toBe('number');
    expect(back.long).toBeInstanceOf(Long);
    expect((back.decimal as Decimal128).toString()).toBe('1234.5678901234567890');
    expect((back.bin as Binary).sub_type).toBe(0);
  });

  it('round-trips a subtype 4 (UUID) binary with its bytes', () => {
    s.insert('app', 'types', { _id: 1, uuid: new Binary(Buffer.alloc(16, 7), 4) });
    const uuid = s.findById('app', 'types', 1)!.uuid as Binary;
    expect(uuid.sub_type).toBe(4);
    expect(Buffer.from(uuid.buffer).equals(Buffer.alloc(16, 7))).toBe(true);
  });

  it('stores, reopens and removes a document whose _id is too long for an lmdb key', async () => {
    const id = 'k'.repeat(5000);
    s.insert('app', 'c', { _id: id, v: 1 });
    const again = await h.reopen();
    expect(again.findById('app', 'c', id)?.v).toBe(1);
    expect(again.remove('app', 'c', id)).toBe(true);
    const third = await h.reopen();
    expect(third.count('app', 'c')).toBe(0);
  });

  it('keeps natural order across a reopen, and new inserts after it', async () => {
    for (const id of [5, 1, 'b', 3, 'a']) s.insert('app', 'order', { _id: id });
    s.remove('app', 'order', 5);
    s.insert('app', 'order', { _id: 5 });
    await s.flush();
    const again = await h.reopen();
    again.insert('app', 'order', { _id: 0 });
    expect([...again.scan('app', 'order')].map((d) => d._id)).toEqual([1, 'b', 3, 'a', 5, 0]);
  });

  it('round-trips every BSON type after a reopen', async () => {
    const doc = { _id: 1, d: new Double(2), l: Long.fromNumber(3), dec: Decimal128.fromString('4.5'), i: 6, at: new Date(0) };
    s.insert('app', 'types', doc);
    await s.flush();
    const again = await h.reopen();
    expect(again.findById('app', 'types', 1)).toEqual(doc);
  });

  it('keeps stored documents out of Buffer memory (a pooled slice would hold its whole 8 KiB slab), also once reopened', async () => {
    // Measured on a just reopened storage each time: no checkpoint is under way (lmdb), and the restore path is the one measured.
    s.insert('app', 'c', { _id: 'warm' });
    await h.reopen();
    const before = await bufferMemoryAfterGc();
    for (let i = 0; i < 4000; i++) s.insert('app', 'c', { _id: i, text: 'x'.repeat(500) });
    await h.reopen();
    // 4000 documents of ~530 bytes: 2 MiB if each were a Buffer.
    expect((await bufferMemoryAfterGc()) - before).toBeLessThan(200_000);
    expect(s.findById('app', 'c', 3999)?.text).toHaveLength(500);
  });

  it('scans without holding Buffer memory for the documents it hands out (their stored bytes stay beside them for replies)', async () => {
    for (let i = 0; i < 4000; i++) s.insert('app', 'c', { _id: i, text: 'x'.repeat(500), n: i });
    await h.reopen();
    const before = await bufferMemoryAfterGc();
    const whole = [...s.scan('app', 'c')];
    const partial = [...s.scan('app', 'c', undefined, new Set(['n']))];
    expect((await bufferMemoryAfterGc()) - before).toBeLessThan(200_000);
    expect(whole).toHaveLength(4000);
    expect(whole[3999]).toEqual({ _id: 3999, text: 'x'.repeat(500), n: 3999 });
    expect(partial[3999]).toEqual({ n: 3999 });
    expect(storedBytesOf(partial[3999]!)).toBe(storedBytesOf(whole[3999]!));
  });

  it('hands out documents holding a Binary without their reads pinning Buffer pool slabs, the Binary intact', async () => {
    for (let i = 0; i < 20_000; i++) s.insert('app', 'c', { _id: i, uuid: new UUID(), data: new Binary(Buffer.from([i & 255, 1, 2, 3]), 0), n: i });
    await h.reopen();
    const before = await bufferMemoryAfterGc();
    // One document in a hundred is held, as a page of results is among many reads: a view into a pooled read would keep its slab (64 KiB) alive.
    const held: Record<string, unknown>[] = [];
    const keep = (doc: Record<string, unknown> | undefined, i: number) => (i % 100 === 0 ? held.push(doc!) : undefined);
    [...s.scan('app', 'c')].forEach(keep);
    [...s.scan('app', 'c', undefined, new Set(['data', 'n']))].forEach(keep);
    for (let i = 0; i < 20_000; i++) keep(s.findById('app', 'c', i), i);
    // 600 documents of ~70 bytes each own their bytes (about 30 KB measured); the pinned slabs were 3.2 MB.
    expect((await bufferMemoryAfterGc()) - before).toBeLessThan(300_000);
    expect(held).toHaveLength(600);
    for (const doc of held) {
      expect((doc.data as Binary).buffer).toEqual(Buffer.from([(doc.n as number) & 255, 1, 2, 3]));
      if (doc.uuid !== undefined) expect(doc.uuid).toBeInstanceOf(Binary);
    }
  });
});
