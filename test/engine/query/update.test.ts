import { Decimal128, Double, Long, Timestamp } from 'bson';
import { describe, expect, it } from 'vitest';
import { applyUpdate, isOperatorUpdate, upsertSeed } from '../../../src/engine/query/index.js';
import type { Document, UpdateOptions } from '../../../src/engine/query/index.js';

const now = new Date('2026-01-01T00:00:00Z');
const run = (doc: Document, update: Document | Document[], opts: Partial<UpdateOptions> = {}) =>
  applyUpdate(doc, update, { isInsert: false, now, ...opts });

type Case = [name: string, doc: Document, update: Document | Document[], expected: Document, opts?: Partial<UpdateOptions>];

const cases: Record<string, Case[]> = {
  replacement: [
    ['replaces and keeps _id', { _id: 1, a: 1 }, { b: 2 }, { _id: 1, b: 2 }],
    ['same _id allowed', { _id: 1, a: 1 }, { _id: 1, b: 2 }, { _id: 1, b: 2 }],
  ],
  fields: [
    ['$set existing field keeps its position', { _id: 1, a: 1, b: 2 }, { $set: { a: 5 } }, { _id: 1, a: 5, b: 2 }],
    ['$set dotted creates sub-documents', { _id: 1 }, { $set: { 'a.b.c': 1 } }, { _id: 1, a: { b: { c: 1 } } }],
    ['$set array index', { _id: 1, a: [1, 2] }, { $set: { 'a.1': 9 } }, { _id: 1, a: [1, 9] }],
    ['$set array index beyond the end pads with null', { _id: 1, a: [1] }, { $set: { 'a.2': 3 } }, { _id: 1, a: [1, null, 3] }],
    ['new fields are created in path order', { _id: 1 }, { $set: { b: 1, a: 1 } }, { _id: 1, a: 1, b: 1 }],
    ['$unset', { _id: 1, a: 1, b: 2 }, { $unset: { a: '' } }, { _id: 1, b: 2 }],
    ['$unset array element sets null', { _id: 1, a: [1, 2] }, { $unset: { 'a.0': 1 } }, { _id: 1, a: [null, 2] }],
    ['$inc int', { _id: 1, a: 1 }, { $inc: { a: 2 } }, { _id: 1, a: 3 }],
    ['$inc missing creates', { _id: 1 }, { $inc: { a: 2 } }, { _id: 1, a: 2 }],
    ['$inc int overflow becomes long', { _id: 1, a: 2147483647 }, { $inc: { a: 1 } }, { _id: 1, a: Long.fromNumber(2147483648) }],
    ['$inc with double gives double', { _id: 1, a: 1 }, { $inc: { a: new Double(1) } }, { _id: 1, a: new Double(2) }],
    ['$inc long stays long', { _id: 1, a: Long.fromNumber(1) }, { $inc: { a: 1 } }, { _id: 1, a: Long.fromNumber(2) }],
    ['$inc decimal', { _id: 1, a: Decimal128.fromString('1.1') }, { $inc: { a: 1 } }, { _id: 1, a: Decimal128.fromString('2.1') }],
    ['$mul', { _id: 1, a: 3 }, { $mul: { a: 2 } }, { _id: 1, a: 6 }],
    ['$mul missing gives zero', { _id: 1 }, { $mul: { a: 5 } }, { _id: 1, a: 0 }],
    ['$min lowers', { _id: 1, a: 5 }, { $min: { a: 3 } }, { _id: 1, a: 3 }],
    ['$min keeps lower', { _id: 1, a: 2 }, { $min: { a: 3 } }, { _id: 1, a: 2 }],
    ['$max raises', { _id: 1, a: 5 }, { $max: { a: 7 } }, { _id: 1, a: 7 }],
    ['$rename', { _id: 1, a: 1, b: 2 }, { $rename: { a: 'c' } }, { _id: 1, b: 2, c: 1 }],
    ['$rename into sub-document', { _id: 1, a: 1 }, { $rename: { a: 'x.y' } }, { _id: 1, x: { y: 1 } }],
    ['$rename missing source is a no-op', { _id: 1 }, { $rename: { a: 'b' } }, { _id: 1 }],
    ['$setOnInsert ignored on update', { _id: 1 }, { $setOnInsert: { a: 1 }, $set: { b: 1 } }, { _id: 1, b: 1 }],
    ['an empty $set is a no-op (MongoDB 5.0+)', { _id: 1, a: 1 }, { $set: {} }, { _id: 1, a: 1 }],
    ['empty operands beside a real one', { _id: 1, a: 1 }, { $set: {}, $unset: {}, $inc: { a: 1 } }, { _id: 1, a: 2 }],
    ['$setOnInsert applied on insert', { _id: 1 }, { $setOnInsert: { a: 1 } }, { _id: 1, a: 1 }, { isInsert: true }],
    ['$currentDate', { _id: 1 }, { $currentDate: { d: true } }, { _id: 1, d: now }],
    ['$currentDate timestamp', { _id: 1 }, { $currentDate: { t: { $type: 'timestamp' } } }, { _id: 1, t: new Timestamp({ t: now.getTime() / 1000, i: 1 }) }],
  ],
  arrays: [
    ['$push', { _id: 1, a: [1] }, { $push: { a: 2 } }, { _id: 1, a: [1, 2] }],
    ['$push creates the array', { _id: 1 }, { $push: { a: 2 } }, { _id: 1, a: [2] }],
    ['$push $each', { _id: 1, a: [1] }, { $push: { a: { $each: [2, 3] } } }, { _id: 1, a: [1, 2, 3] }],
    ['$push $position', { _id: 1, a: [1, 2] }, { $push: { a: { $each: [0], $position: 0 } } }, { _id: 1, a: [0, 1, 2] }],
    ['$push $slice negative', { _id: 1, a: [1, 2] }, { $push: { a: { $each: [3], $slice: -2 } } }, { _id: 1, a: [2, 3] }],
    ['$push $sort values', { _id: 1, a: [3, 1] }, { $push: { a: { $each: [2], $sort: 1 } } }, { _id: 1, a: [1, 2, 3] }],
    ['$push $sort by field', { _id: 1, a: [{ s: 2 }] }, { $push: { a: { $each: [{ s: 1 }], $sort: { s: -1 } } } }, { _id: 1, a: [{ s: 2 }, { s: 1 }] }],
    ['$addToSet adds', { _id: 1, a: [1] }, { $addToSet: { a: 2 } }, { _id: 1, a: [1, 2] }],
    ['$addToSet skips present (across numeric types)', { _id: 1, a: [1] }, { $addToSet: { a: new Double(1) } }, { _id: 1, a: [1] }],
    ['$addToSet $each', { _id: 1, a: [1] }, { $addToSet: { a: { $each: [1, 2, 2] } } }, { _id: 1, a: [1, 2] }],
    ['$pull value', { _id: 1, a: [1, 2, 1] }, { $pull: { a: 1 } }, { _id: 1, a: [2] }],
    ['$pull condition', { _id: 1, a: [1, 5, 7] }, { $pull: { a: { $gte: 5 } } }, { _id: 1, a: [1] }],
    ['$pull document condition', { _id: 1, a: [{ x: 1, y: 1 }, { x: 2 }] }, { $pull: { a: { x: 1 } } }, { _id: 1, a: [{ x: 2 }] }],
    ['$pullAll', { _id: 1, a: [1, 2, 3] }, { $pullAll: { a: [1, 3] } }, { _id: 1, a: [2] }],
    ['$pop last', { _id: 1, a: [1, 2] }, { $pop: { a: 1 } }, { _id: 1, a: [1] }],
    ['$pop first', { _id: 1, a: [1, 2] }, { $pop: { a: -1 } }, { _id: 1, a: [2] }],
  ],
  positional: [
    ['$ uses the filter match', { _id: 1, a: [1, 2, 3] }, { $set: { 'a.$': 9 } }, { _id: 1, a: [1, 9, 3] }, { filter: { a: 2 } }],
    ['$ with sub-document field', { _id: 1, a: [{ x: 1 }, { x: 2 }] }, { $inc: { 'a.$.x': 10 } }, { _id: 1, a: [{ x: 1 }, { x: 12 }] }, { filter: { 'a.x': 2 } }],
    ['$[] updates every element', { _id: 1, a: [1, 2] }, { $inc: { 'a.$[]': 1 } }, { _id: 1, a: [2, 3] }],
    ['$[id] with arrayFilters', { _id: 1, a: [1, 5, 7] }, { $set: { 'a.$[big]': 0 } }, { _id: 1, a: [1, 0, 0] }, { arrayFilters: [{ big: { $gte: 5 } }] }],
    ['$[id] on sub-document fields', { _id: 1, a: [{ g: 1 }, { g: 9 }] }, { $set: { 'a.$[e].ok': true } }, { _id: 1, a: [{ g: 1 }, { g: 9, ok: true }] }, { arrayFilters: [{ 'e.g': { $gt: 5 } }] }],
  ],
  pipeline: [
    ['$set stage', { _id: 1, a: 1 }, [{ $set: { b: { $add: ['$a', 1] } } }], { _id: 1, a: 1, b: 2 }],
    ['$unset stage', { _id: 1, a: 1, b: 1 }, [{ $unset: 'b' }], { _id: 1, a: 1 }],
    ['$replaceWith keeps same _id', { _id: 1, a: { _id: 1, z: 1 } }, [{ $replaceWith: '$a' }], { _id: 1, z: 1 }],
    ['$replaceRoot without _id keeps the original _id', { _id: 1, t: { u: 1 } }, [{ $replaceRoot: { newRoot: '$t' } }, { $addFields: { foo: 1 } }], { _id: 1, u: 1, foo: 1 }],
    ['$project excluding _id keeps the original _id', { _id: 1, a: 1, b: 2 }, [{ $project: { _id: 0, a: 1 } }], { _id: 1, a: 1 }],
  ],
};

for (const [family, list] of Object.entries(cases)) {
  describe(`applyUpdate: ${family}`, () => {
    it.each(list)('%s', (_name, doc, update, expected, opts) => {
      expect(run(doc, update, opts).doc).toEqual(expected);
    });
  });
}

describe('applyUpdate result', () => {
  it('keeps field order of the document', () => {
    expect(Object.keys(run({ _id: 1, z: 1, a: 1 }, { $set: { z: 2, b: 1 } }).doc)).toEqual(['_id', 'z', 'a', 'b']);
  });
  it('reports a no-op as not modified', () => {
    expect(run({ _id: 1, a: 1 }, { $set: { a: 1 } }).modified).toBe(false);
  });
  it('reports a type change as modified', () => {
    expect(run({ _id: 1, a: 1 }, { $set: { a: new Double(1) } }).modified).toBe(true);
  });
  it('does not mutate the input', () => {
    const doc = { _id: 1, a: { b: [1] } };
    run(doc, { $push: { 'a.b': 2 } });
    expect(doc).toEqual({ _id: 1, a: { b: [1] } });
  });
  it('keeps an int result an int (no Double wrapper)', () => {
    expect(run({ _id: 1, a: 1 }, { $inc: { a: 1 } }).doc.a).toBe(2);
  });
});

describe('applyUpdate errors carry mongod codes', () => {
  it.each([
    ['unknown operator', { $foo: { a: 1 } }, {}, 9],
    ['operand not an object', { $set: 1 }, {}, 9],
    ['conflicting paths', { $set: { a: 1 }, $inc: { a: 1 } }, {}, 40],
    ['conflicting parent/child', { $set: { 'a.b': 1, a: 1 } }, {}, 40],
    ['_id change', { $set: { _id: 2 } }, {}, 66],
    ['_id change by replacement', { _id: 2, a: 1 }, {}, 66],
    ['$inc non-numeric argument', { $inc: { a: 'x' } }, {}, 14],
    ['$inc on a string field', { $inc: { s: 1 } }, {}, 14],
    ['path through a scalar', { $set: { 's.x': 1 } }, {}, 28],
    ['$push on non-array', { $push: { s: 1 } }, {}, 2],
    ['$pop bad value', { $pop: { arr: 2 } }, {}, 9],
    ['$pullAll non-array', { $pullAll: { arr: 1 } }, {}, 2],
    ['positional without a filter match', { $set: { 'arr.$': 1 } }, {}, 2],
    ['array filter identifier missing', { $set: { 'arr.$[x]': 1 } }, {}, 2],
    ['unused array filter', { $set: { s: 'y' } }, { arrayFilters: [{ x: 1 }] }, 9],
    ['empty field name', { $set: { 'a..b': 1 } }, {}, 56],
    ['$rename to itself', { $rename: { s: 's' } }, {}, 2],
    ['disallowed pipeline stage', [{ $match: {} }], {}, 72],
    ['pipeline setting a different _id', [{ $set: { _id: 2 } }], {}, 66],
  ] as Array<[string, Document | Document[], Partial<UpdateOptions>, number]>)('%s', (_n, update, opts, code) => {
    expect(() => run({ _id: 1, s: 'x', arr: [1] }, update, opts)).toThrow(expect.objectContaining({ code }));
  });
});

describe('isOperatorUpdate and upsertSeed', () => {
  it('tells operator updates from replacements', () => {
    expect([isOperatorUpdate({ $set: {} }), isOperatorUpdate({ a: 1 }), isOperatorUpdate([{ $set: {} }])]).toEqual([true, false, false]);
  });
  it('seeds an upsert from equality conditions', () => {
    expect(upsertSeed({ a: 1, 'b.c': 2, d: { $gt: 1 }, e: { $eq: 3 }, $and: [{ f: 4 }], g: /x/, _id: 7 })).toEqual({
      _id: 7,
      a: 1,
      b: { c: 2 },
      e: 3,
      f: 4,
    });
  });
  it('puts _id first in the seed', () => {
    expect(Object.keys(upsertSeed({ a: 1, _id: 2 }))).toEqual(['_id', 'a']);
  });
});

describe('applyUpdate for upserts and pipelines', () => {
  it('an upsert with a replacement keeps only the seeded _id', () => {
    const seed = upsertSeed({ _id: 5, name: 'x' });
    expect(applyUpdate(seed, { name: 'y', n: 1 }, { isInsert: true }).doc).toEqual({ _id: 5, name: 'y', n: 1 });
  });
  it('an upsert with operators builds on the seed', () => {
    const seed = upsertSeed({ email: 'a@b' });
    expect(applyUpdate(seed, { $set: { n: 1 }, $setOnInsert: { createdAt: now } }, { isInsert: true, now }).doc).toEqual({
      email: 'a@b',
      createdAt: now,
      n: 1,
    });
  });
  it('an upsert may set _id with $set', () => {
    expect(applyUpdate({}, { $set: { _id: 3 } }, { isInsert: true }).doc).toEqual({ _id: 3 });
  });
  it('a pipeline update sees let variables', () => {
    expect(run({ _id: 1 }, [{ $set: { v: '$$x' } }], { variables: { x: 7 } }).doc).toEqual({ _id: 1, v: 7 });
  });
  it('$[] on a missing array is an error (2)', () => {
    expect(() => run({ _id: 1 }, { $set: { 'a.$[]': 1 } })).toThrow(expect.objectContaining({ code: 2 }));
  });
  it('$pull with $in', () => {
    expect(run({ _id: 1, a: [1, 2, 3] }, { $pull: { a: { $in: [1, 3] } } }).doc).toEqual({ _id: 1, a: [2] });
  });
  it('$addToSet compares with the collation', () => {
    const out = applyUpdate({ _id: 1, a: ['X'] }, { $addToSet: { a: 'x' } }, { isInsert: false, collation: { locale: 'en', strength: 2 } });
    expect(out.modified).toBe(false);
  });
});

describe('applyUpdate: $bit', () => {
  it.each([
    ['and', { _id: 1, a: 13 }, { $bit: { a: { and: 10 } } }, { _id: 1, a: 8 }],
    ['or', { _id: 1, a: 13 }, { $bit: { a: { or: 2 } } }, { _id: 1, a: 15 }],
    ['xor with long gives long', { _id: 1, a: 5 }, { $bit: { a: { xor: Long.fromNumber(1) } } }, { _id: 1, a: Long.fromNumber(4) }],
    ['missing field counts as 0', { _id: 1 }, { $bit: { a: { or: 3 } } }, { _id: 1, a: 3 }],
  ] as Case[])('%s', (_name, doc, update, expected) => {
    expect(run(doc, update).doc).toEqual(expected);
  });
  it('rejects a double operand (2)', () => {
    expect(() => run({ _id: 1, a: 1 }, { $bit: { a: { and: 1.5 } } })).toThrow(expect.objectContaining({ code: 2 }));
  });
});

describe('$pull with logical operators (a query on each element document)', () => {
  const doc = { _id: 1, a: [{ x: 1, y: 1 }, { x: 2, y: 2 }, { x: 3, y: 3 }, 4] };
  it.each([
    ['$or', { $or: [{ x: 1 }, { y: 3 }] }, [{ x: 2, y: 2 }, 4]],
    ['$and', { $and: [{ x: { $gte: 2 } }, { y: { $lt: 3 } }] }, [{ x: 1, y: 1 }, { x: 3, y: 3 }, 4]],
    ['$nor', { $nor: [{ x: 1 }, { x: 2 }] }, [{ x: 1, y: 1 }, { x: 2, y: 2 }, 4]],
  ] as Array<[string, Document, unknown[]]>)('%s', (_n, cond, kept) => {
    expect(run(doc, { $pull: { a: cond } }).doc).toEqual({ _id: 1, a: kept });
  });
});
