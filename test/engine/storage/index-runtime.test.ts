import { Double, ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { IndexRuntime } from '../../../src/engine/storage/index-runtime.js';

// sameKeysBetween lets a replacement skip the indexes whose key fields it left alone.
describe('IndexRuntime.sameKeysBetween', () => {
  const compound = new IndexRuntime({ v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1' });
  const id = new ObjectId();

  it('holds when only other fields differ (equal values, even as different objects)', () => {
    expect(compound.sameKeysBetween({ a: id, b: new Date(5), x: 1 }, { a: new ObjectId(id.id), b: new Date(5), x: 2 })).toBe(true);
  });
  it.each([
    ['a key value differs', { a: 1, b: 1 }, { a: 1, b: 2 }],
    ['a key field goes missing', { a: 1, b: 1 }, { a: 1 }],
    ['missing becomes null', { a: 1 }, { a: 1, b: null }],
    ['an int becomes an equal double', { a: 1, b: 1 }, { a: 1, b: new Double(1) }],
    ['a key value is an array', { a: 1, b: [1] }, { a: 1, b: [1] }],
  ])('does not hold when %s', (_name, a, b) => {
    expect(compound.sameKeysBetween(a, b)).toBe(false);
  });
  it.each([
    ['a dotted key', { v: 2, key: { 'a.b': 1 }, name: 'a.b_1' }],
    ['a partial filter', { v: 2, key: { a: 1 }, name: 'a_1', partialFilterExpression: { x: { $gt: 1 } } }],
    ['a text index', { v: 2, key: { _fts: 'text', _ftsx: 1 }, name: 't', weights: { a: 1 } }],
    ['a hashed index', { v: 2, key: { a: 'hashed' }, name: 'a_hashed' }],
  ])('is never claimed for %s', (_name, spec) => {
    expect(new IndexRuntime(spec).sameKeysBetween({ a: 1, x: 1 }, { a: 1, x: 2 })).toBe(false);
  });
});
