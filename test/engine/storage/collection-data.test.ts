import { describe, expect, it } from 'vitest';
import { decodeStoredDocument, encodeStoredDocument } from '../../../src/engine/storage/bson-codec.js';
import { CollectionData, idKeyOf } from '../../../src/engine/storage/collection-data.js';
import { ID_INDEX } from '../../../src/engine/storage/index-spec-rules.js';

const compound = { v: 2, key: { a: 1, b: 1 }, name: 'a_1_b_1' };

describe('collection data: documents stored before a rule existed', () => {
  it('restores a document with parallel arrays under a compound index and can still remove it', () => {
    const data = new CollectionData('app.c', [ID_INDEX, compound]);
    data.restore([encodeStoredDocument({ _id: 1, a: [1, 2], b: [3, 4] })]);
    expect(data.remove(idKeyOf(1))).toBe(true);
    expect(data.count).toBe(0);
  });

  it('refuses a new document with parallel arrays under a compound index (171)', () => {
    const data = new CollectionData('app.c', [ID_INDEX, compound]);
    expect(() => data.insert({ _id: 1, a: [1, 2], b: [3, 4] })).toThrow(expect.objectContaining({ code: 171 }));
    expect(data.count).toBe(0);
  });
});

/** A document whose field `a` nests `levels` more non-empty containers (arrays and documents alternating). */
function nestedMixed(levels: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { x: value };
  return value;
}

describe('collection data: the 180-level storage limit', () => {
  it('stores 180 levels of arrays and documents and refuses 181 (Overflow, 15)', () => {
    const data = new CollectionData('app.c', [ID_INDEX]);
    data.insert({ _id: 1, a: nestedMixed(179) });
    expect(() => data.insert({ _id: 2, a: nestedMixed(180) })).toThrow(expect.objectContaining({ code: 15 }));
    expect(data.count).toBe(1);
  });

  it('does not count empty containers as a level', () => {
    const data = new CollectionData('app.c', [ID_INDEX]);
    data.insert({ _id: 1, a: nestedMixed(179, []), b: nestedMixed(179, {}) });
    expect(data.count).toBe(1);
  });

  it('applies the limit to a replacement too, leaving the stored document as it was', () => {
    const data = new CollectionData('app.c', [ID_INDEX]);
    data.insert({ _id: 1, a: 1 });
    expect(() => data.replace({ _id: 1, a: nestedMixed(180) })).toThrow(expect.objectContaining({ code: 15 }));
    expect(decodeStoredDocument(data.get(idKeyOf(1))!)).toEqual({ _id: 1, a: 1 });
  });
});

describe('collection data: a replacement given the pre-image it read', () => {
  const uniqueEmail = { v: 2, key: { email: 1 }, name: 'email_1', unique: true };
  const byTag = { v: 2, key: { tags: 1 }, name: 'tags_1' };

  it('moves the index entries from the pre-image keys to the new ones', () => {
    const data = new CollectionData('app.c', [ID_INDEX, uniqueEmail, byTag]);
    data.insert({ _id: 1, email: 'a', tags: ['x', 'y'] });
    const previous = decodeStoredDocument(data.get(idKeyOf(1))!);
    data.replace({ _id: 1, email: 'b', tags: ['y', 'z'] }, previous);
    expect(data.scan({ index: 'email_1', equals: ['a'] })).toEqual([]);
    expect(data.scan({ index: 'email_1', equals: ['b'] })).toEqual([idKeyOf(1)]);
    expect(data.scan({ index: 'tags_1', equals: ['x'] })).toEqual([]);
    expect(data.scan({ index: 'tags_1', equals: ['z'] })).toEqual([idKeyOf(1)]);
    // The old unique key is free again; the new one is taken.
    data.insert({ _id: 2, email: 'a', tags: [] });
    expect(() => data.insert({ _id: 3, email: 'b' })).toThrow(expect.objectContaining({ code: 11000 }));
    // tags_1: y and z of the first, one entry for the empty array of the second.
    expect(data.sizes().indexEntries).toEqual({ _id_: 2, email_1: 2, tags_1: 3 });
  });

  it('ignores a pre-image of another document and reads the stored one', () => {
    const data = new CollectionData('app.c', [ID_INDEX, uniqueEmail]);
    data.insert({ _id: 1, email: 'a' });
    data.insert({ _id: 2, email: 'b' });
    data.replace({ _id: 1, email: 'c' }, { _id: 2, email: 'b' });
    expect(data.scan({ index: 'email_1', equals: ['a'] })).toEqual([]);
    expect(data.scan({ index: 'email_1', equals: ['b'] })).toEqual([idKeyOf(2)]);
    expect(data.scan({ index: 'email_1', equals: ['c'] })).toEqual([idKeyOf(1)]);
  });
});

describe('collection data: a replacement that leaves an index key alone', () => {
  const byAB = { v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1' };
  const sparseC = { v: 2, key: { c: 1 }, name: 'c_1', sparse: true };

  it('keeps the entries of unchanged keys and moves the changed ones', () => {
    const data = new CollectionData('app.c', [ID_INDEX, byAB, sparseC]);
    data.insert({ _id: 1, a: 1, b: 2, x: 'old' });
    data.replace({ _id: 1, a: 1, b: 2, x: 'new' }, decodeStoredDocument(data.get(idKeyOf(1))!));
    expect(data.scan({ index: 'a_1_b_-1', equals: [1] })).toEqual([idKeyOf(1)]);
    expect(data.countKeys({ index: 'c_1' })).toBe(0);
    // Missing -> null is a key change for a sparse index.
    data.replace({ _id: 1, a: 2, b: 2, x: 'new', c: null }, decodeStoredDocument(data.get(idKeyOf(1))!));
    expect(data.scan({ index: 'a_1_b_-1', equals: [1] })).toEqual([]);
    expect(data.scan({ index: 'a_1_b_-1', equals: [2] })).toEqual([idKeyOf(1)]);
    expect(data.countKeys({ index: 'c_1' })).toBe(1);
  });
});

describe('collection data: compound keys of a non-unique index (no canonical key for a plain tuple)', () => {
  const dotted = { v: 2, key: { 'a.b': 1, c: 1 }, name: 'a.b_1_c_1' };

  it.each([
    ['a nested key value changes', { a: { b: 1 }, c: 1 }, { a: { b: 2 }, c: 1 }, [[2, 1]]],
    ['a plain tuple becomes an array one', { a: { b: 1 }, c: 1 }, { a: [{ b: 4 }, { b: 3 }], c: 1 }, [[3, 1], [4, 1]]],
    ['an array tuple becomes a plain one', { a: [{ b: 1 }, { b: 3 }], c: 1 }, { a: { b: 3 }, c: 1 }, [[3, 1]]],
    ['the nested value becomes missing (null)', { a: { b: 1 }, c: 1 }, { a: {}, c: 1 }, [[null, 1]]],
    ['nothing changes in the keys', { a: { b: 1 }, c: 1, x: 1 }, { a: { b: 1 }, c: 1, x: 2 }, [[1, 1]]],
  ])('gives the new keys exactly when %s', (_name, before, after, keys) => {
    const data = new CollectionData('app.c', [ID_INDEX, dotted]);
    data.insert({ _id: 1, ...before });
    data.replace({ _id: 1, ...after }, decodeStoredDocument(data.get(idKeyOf(1))!));
    for (const key of keys) expect([...data.scan({ index: 'a.b_1_c_1', keyBounds: { equals: key } })]).toEqual([idKeyOf(1)]);
    expect(data.sizes().indexEntries['a.b_1_c_1']).toBe(keys.length);
    if (!keys.some(([b]) => b === 1)) expect([...data.scan({ index: 'a.b_1_c_1', keyBounds: { equals: [1, 1] } })]).toEqual([]);
  });
});
