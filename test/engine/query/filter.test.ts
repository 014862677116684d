import { BSONRegExp, Decimal128, Double, Long, ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../../src/engine/query/index.js';
import type { Document } from '../../../src/engine/query/index.js';

const matches = (filter: Document, doc: Document, variables?: Document) => compileFilter(filter, { variables })(doc);
const oid = new ObjectId('64b7f0c2a1b2c3d4e5f60718');

type Case = [name: string, filter: Document, doc: Document, expected: boolean];

const cases: Record<string, Case[]> = {
  equality: [
    ['int matches integral double', { a: 1 }, { a: new Double(1) }, true],
    ['int matches long', { a: 2 }, { a: Long.fromNumber(2) }, true],
    ['decimal matches int', { a: Decimal128.fromString('3.0') }, { a: 3 }, true],
    ['string does not equal number', { a: '1' }, { a: 1 }, false],
    ['array field matches an element', { a: 2 }, { a: [1, 2, 3] }, true],
    ['array field matches the whole array', { a: [1, 2] }, { a: [1, 2] }, true],
    ['array order matters', { a: [2, 1] }, { a: [1, 2] }, false],
    ['null matches missing', { a: null }, {}, true],
    ['null matches null', { a: null }, { a: null }, true],
    ['null does not match a value', { a: null }, { a: 0 }, false],
    ['dotted path into subdocument', { 'a.b': 1 }, { a: { b: 1 } }, true],
    ['dotted path through array', { 'a.b': 2 }, { a: [{ b: 1 }, { b: 2 }] }, true],
    ['numeric path component', { 'a.1.b': 2 }, { a: [{ b: 1 }, { b: 2 }] }, true],
    ['numeric path component mismatch', { 'a.0.b': 2 }, { a: [{ b: 1 }, { b: 2 }] }, false],
    ['ObjectId equality', { _id: oid }, { _id: new ObjectId(oid.toHexString()) }, true],
    ['document equality respects field order', { a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } }, false],
    ['bare regex', { a: /^ab/ }, { a: 'abc' }, true],
    ['bare regex matches array element', { a: /^ab/ }, { a: ['x', 'abd'] }, true],
    ['empty filter matches all', {}, { a: 1 }, true],
  ],
  comparison: [
    ['$gt numbers across types', { a: { $gt: 1 } }, { a: Long.fromNumber(2) }, true],
    ['$gt does not match strings (type bracketing)', { a: { $gt: 5 } }, { a: 'zzz' }, false],
    ['$gt does not match missing', { a: { $gt: 5 } }, {}, false],
    ['$gte equal', { a: { $gte: 5 } }, { a: new Double(5) }, true],
    ['$lt with arrays: any element', { a: { $lt: 2 } }, { a: [5, 1] }, true],
    ['$lte strings', { a: { $lte: 'b' } }, { a: 'abc' }, true],
    ['$gt and $lt on the same array may use different elements', { a: { $gt: 3, $lt: 2 } }, { a: [1, 5] }, true],
    ['$gt dates', { a: { $gt: new Date(1) } }, { a: new Date(2) }, true],
    ['$ne with missing field', { a: { $ne: 1 } }, {}, true],
    ['$ne with array containing the value', { a: { $ne: 1 } }, { a: [1, 2] }, false],
    ['$ne null excludes missing', { a: { $ne: null } }, {}, false],
    ['$eq explicit', { a: { $eq: 'x' } }, { a: 'x' }, true],
    ['$in matches', { a: { $in: [1, 2] } }, { a: 2 }, true],
    ['$in with regex', { a: { $in: [/^x/, 3] } }, { a: 'xy' }, true],
    ['$in with null matches missing', { a: { $in: [null] } }, {}, true],
    ['$in array element', { a: { $in: [5] } }, { a: [4, 5] }, true],
    ['$nin', { a: { $nin: [1, 2] } }, { a: 3 }, true],
    ['$nin missing matches', { a: { $nin: [1] } }, {}, true],
  ],
  logical: [
    ['$and', { $and: [{ a: 1 }, { b: 2 }] }, { a: 1, b: 2 }, true],
    ['$or', { $or: [{ a: 1 }, { b: 2 }] }, { b: 2 }, true],
    ['$nor', { $nor: [{ a: 1 }, { b: 2 }] }, { a: 3 }, true],
    ['$not with operator', { a: { $not: { $gt: 5 } } }, { a: 3 }, true],
    ['$not matches missing', { a: { $not: { $gt: 5 } } }, {}, true],
    ['$not with regex', { a: { $not: /^x/ } }, { a: 'yx' }, true],
  ],
  element: [
    ['$exists true', { a: { $exists: true } }, { a: null }, true],
    ['$exists false', { a: { $exists: false } }, {}, true],
    ['$exists through arrays', { 'a.b': { $exists: true } }, { a: [{ c: 1 }, { b: 1 }] }, true],
    ['$type by name', { a: { $type: 'string' } }, { a: 'x' }, true],
    ['$type int vs double', { a: { $type: 'double' } }, { a: 1 }, false],
    ['$type double wrapper', { a: { $type: 'double' } }, { a: new Double(1) }, true],
    ['$type long', { a: { $type: 'long' } }, { a: Long.fromNumber(1) }, true],
    ['$type number alias', { a: { $type: 'number' } }, { a: Decimal128.fromString('1') }, true],
    ['$type by number', { a: { $type: 7 } }, { a: oid }, true],
    ['$type array', { a: { $type: 'array' } }, { a: [] }, true],
    ['$type list', { a: { $type: ['bool', 'null'] } }, { a: null }, true],
    ['$type null does not match missing', { a: { $type: 'null' } }, {}, false],
  ],
  array: [
    ['$size', { a: { $size: 2 } }, { a: [1, 2] }, true],
    ['$size mismatch', { a: { $size: 1 } }, { a: [1, 2] }, false],
    ['$all', { a: { $all: [1, 3] } }, { a: [3, 2, 1] }, true],
    ['$all missing one', { a: { $all: [1, 4] } }, { a: [3, 2, 1] }, false],
    ['$all empty matches nothing', { a: { $all: [] } }, { a: [1] }, false],
    ['$all with $elemMatch', { a: { $all: [{ $elemMatch: { x: 1 } }] } }, { a: [{ x: 1 }] }, true],
    ['$elemMatch document form', { a: { $elemMatch: { x: 1, y: 2 } } }, { a: [{ x: 1 }, { x: 1, y: 2 }] }, true],
    ['$elemMatch needs one element for all conditions', { a: { $elemMatch: { x: 1, y: 2 } } }, { a: [{ x: 1 }, { y: 2 }] }, false],
    ['$elemMatch value form', { a: { $elemMatch: { $gt: 3, $lt: 5 } } }, { a: [1, 4] }, true],
    ['$elemMatch value form no single element', { a: { $elemMatch: { $gt: 3, $lt: 5 } } }, { a: [1, 6] }, false],
    ['$elemMatch on non-array', { a: { $elemMatch: { $gt: 3 } } }, { a: 4 }, false],
  ],
  evaluation: [
    ['$regex string', { a: { $regex: 'B', $options: 'i' } }, { a: 'abc' }, true],
    ['$regex bson regex', { a: { $regex: new BSONRegExp('^a', '') } }, { a: 'abc' }, true],
    ['$regex does not match numbers', { a: { $regex: '1' } }, { a: 1 }, false],
    ['$regex extended option', { a: { $regex: 'a b # comment', $options: 'x' } }, { a: 'ab' }, true],
    ['$mod', { a: { $mod: [4, 1] } }, { a: 9 }, true],
    ['$mod truncates doubles', { a: { $mod: [4, 1] } }, { a: 9.7 }, true],
    ['$expr compares fields', { $expr: { $gt: ['$a', '$b'] } }, { a: 5, b: 3 }, true],
    ['$expr false', { $expr: { $gt: ['$a', '$b'] } }, { a: 1, b: 3 }, false],
    ['$comment is ignored', { $comment: 'hi', a: 1 }, { a: 1 }, true],
  ],
};

for (const [family, list] of Object.entries(cases)) {
  describe(`compileFilter: ${family}`, () => {
    it.each(list)('%s', (_name, filter, doc, expected) => {
      expect(matches(filter, doc)).toBe(expected);
    });
  });
}

describe('compileFilter options', () => {
  it('uses $expr variables', () => {
    expect(matches({ $expr: { $eq: ['$a', '$$x'] } }, { a: 4 }, { x: 4 })).toBe(true);
  });
  it('compares strings with the collation', () => {
    expect(compileFilter({ a: 'ABC' }, { collation: { locale: 'en', strength: 2 } })({ a: 'abc' })).toBe(true);
  });
});

describe('compileFilter rejects malformed filters with mongod codes', () => {
  it.each([
    ['unknown field operator', { a: { $foo: 1 } }, 2],
    ['unknown top-level operator', { $foo: 1 }, 2],
    ['$in needs an array', { a: { $in: 1 } }, 2],
    ['$nin needs an array', { a: { $nin: 1 } }, 2],
    ['$and needs a non-empty array', { $and: [] }, 2],
    ['$or entries must be objects', { $or: [1] }, 2],
    ['$size needs a number', { a: { $size: 'x' } }, 2],
    ['$mod divisor zero', { a: { $mod: [0, 1] } }, 2],
    ['$mod malformed', { a: { $mod: [1] } }, 2],
    ['$options without $regex', { a: { $options: 'i' } }, 2],
    ['bad regex option', { a: { $regex: 'a', $options: 'q' } }, 51108],
    ['invalid regex', { a: { $regex: '(' } }, 51091],
    ['$not needs a regex or document', { a: { $not: 1 } }, 2],
    ['$elemMatch needs an object', { a: { $elemMatch: 1 } }, 2],
    ['$type unknown alias', { a: { $type: 'foo' } }, 2],
    ['$where: no server-side JavaScript (as javascriptEnabled: false)', { $where: 'true' }, 6108304],
    ['operator object with a plain key', { a: { $gt: 1, b: 1 } }, 2],
  ] as Array<[string, Document, number]>)('%s', (_name, filter, code) => {
    expect(() => compileFilter(filter)).toThrow(expect.objectContaining({ code }));
  });
});

describe('compileFilter: bitwise', () => {
  it.each([
    ['$bitsAllSet mask', { a: { $bitsAllSet: 5 } }, { a: 7 }, true],
    ['$bitsAllSet positions', { a: { $bitsAllSet: [0, 3] } }, { a: 8 }, false],
    ['$bitsAnySet', { a: { $bitsAnySet: [1] } }, { a: 2 }, true],
    ['$bitsAllClear', { a: { $bitsAllClear: 6 } }, { a: 1 }, true],
    ['$bitsAnyClear', { a: { $bitsAnyClear: 3 } }, { a: 1 }, true],
    ['non-integral values never match', { a: { $bitsAnySet: 1 } }, { a: 1.5 }, false],
  ] as Case[])('%s', (_name, filter, doc, expected) => {
    expect(matches(filter, doc)).toBe(expected);
  });
});
