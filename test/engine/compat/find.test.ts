import { describeCompat, type CompatCase } from './compat-cases.js';

const people = [
  { _id: 1, name: 'ann', age: 31, tags: ['a', 'b'], address: { city: 'Oslo', zip: '0150' } },
  { _id: 2, name: 'bob', age: 25, tags: ['b'], address: { city: 'Bergen', zip: '5003' } },
  { _id: 3, name: 'cid', age: 40, tags: [], address: { city: 'Oslo', zip: '0151' } },
  { _id: 4, name: 'Dee', age: null },
  { _id: 5, name: 'eve' },
];

const cases: CompatCase[] = [
  {
    name: 'an empty filter returns every document in _id order',
    seed: people,
    run: (c) => c.find({}).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 4 }, { _id: 5 }],
  },
  {
    name: 'equality on a nested path',
    seed: people,
    run: (c) => c.find({ 'address.city': 'Oslo' }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 3 }],
  },
  {
    name: 'equality matches an array element',
    seed: people,
    run: (c) => c.find({ tags: 'b' }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 2 }],
  },
  {
    name: '{field: null} matches null and missing',
    seed: people,
    run: (c) => c.find({ age: null }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 4 }, { _id: 5 }],
  },
  {
    name: 'range operators combine on one field',
    seed: people,
    run: (c) => c.find({ age: { $gte: 25, $lt: 40 } }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 2 }],
  },
  {
    name: '$in and $or',
    seed: people,
    run: (c) => c.find({ $or: [{ name: { $in: ['bob', 'eve'] } }, { age: 40 }] }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 2 }, { _id: 3 }, { _id: 5 }],
  },
  {
    name: 'sort descending puts null and missing last',
    seed: people,
    run: (c) => c.find({}).sort({ age: -1, _id: 1 }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 3 }, { _id: 1 }, { _id: 2 }, { _id: 4 }, { _id: 5 }],
  },
  {
    name: 'sort, skip and limit apply in that order',
    seed: people,
    run: (c) => c.find({}).sort({ name: 1 }).skip(1).limit(2).project({ _id: 0, name: 1 }).toArray(),
    expected: [{ name: 'ann' }, { name: 'bob' }],
  },
  {
    name: 'inclusion projection keeps _id and document field order',
    seed: people,
    run: (c) => c.find({ _id: 1 }).project({ age: 1, name: 1 }).toArray(),
    expected: [{ _id: 1, name: 'ann', age: 31 }],
  },
  {
    name: 'exclusion projection of a nested field',
    seed: people,
    run: (c) => c.find({ _id: 2 }).project({ 'address.zip': 0, tags: 0 }).toArray(),
    expected: [{ _id: 2, name: 'bob', age: 25, address: { city: 'Bergen' } }],
  },
  {
    name: 'findOne returns the first match',
    seed: people,
    run: (c) => c.findOne({ age: { $gt: 30 } }, { projection: { name: 1 } }),
    expected: { _id: 1, name: 'ann' },
  },
  {
    name: 'findOne with no match returns null',
    seed: people,
    run: (c) => c.findOne({ name: 'zed' }),
    expected: null,
  },
  {
    name: 'a find on a missing collection returns nothing',
    run: (c) => c.find({}).toArray(),
    expected: [],
  },
  {
    name: 'collation strength 2 compares case-insensitively',
    seed: people,
    run: (c) => c.find({ name: 'dee' }, { collation: { locale: 'en', strength: 2 } }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 4 }],
  },
  {
    name: 'a hint naming an existing index is accepted',
    seed: people,
    indexes: [{ key: { name: 1 } }],
    run: (c) => c.find({ name: 'bob' }).hint('name_1').project({ _id: 1 }).toArray(),
    expected: [{ _id: 2 }],
  },
  {
    name: 'a hint naming no index is BadValue',
    seed: people,
    run: (c) => c.find({ name: 'bob' }).hint('nope_1').toArray(),
    code: 2,
  },
  {
    name: 'an index on the filtered field gives the same results',
    seed: people,
    indexes: [{ key: { age: 1 } }],
    run: (c) => c.find({ age: { $gt: 20 } }).sort({ _id: 1 }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 2 }, { _id: 3 }],
  },
  {
    name: '$regex with options',
    seed: people,
    run: (c) => c.find({ name: { $regex: '^d', $options: 'i' } }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 4 }],
  },
  {
    name: '$exists false matches missing fields only',
    seed: people,
    run: (c) => c.find({ age: { $exists: false } }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 5 }],
  },
  {
    name: '$size and $all on arrays',
    seed: people,
    run: (c) => c.find({ $or: [{ tags: { $size: 0 } }, { tags: { $all: ['a', 'b'] } }] }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 3 }],
  },
  {
    name: '$elemMatch on array of documents',
    seed: [{ _id: 1, xs: [{ a: 1, b: 2 }, { a: 3, b: 4 }] }, { _id: 2, xs: [{ a: 1, b: 4 }] }],
    run: (c) => c.find({ xs: { $elemMatch: { a: 3, b: 4 } } }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }],
  },
  {
    name: 'ascending sort on an array field uses its smallest element',
    seed: [{ _id: 1, v: [5, 1] }, { _id: 2, v: 3 }, { _id: 3, v: [2] }],
    run: (c) => c.find({}).sort({ v: 1 }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 3 }, { _id: 2 }],
  },
  {
    name: 'sort across types follows BSON order (numbers before strings before objects)',
    seed: [{ _id: 1, v: 'a' }, { _id: 2, v: { x: 1 } }, { _id: 3, v: 10 }, { _id: 4, v: null }],
    run: (c) => c.find({}).sort({ v: 1 }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 4 }, { _id: 3 }, { _id: 1 }, { _id: 2 }],
  },
  {
    name: 'dates compare and sort chronologically',
    seed: [{ _id: 1, d: new Date('2024-01-02') }, { _id: 2, d: new Date('2023-05-01') }, { _id: 3, d: new Date('2025-01-01') }],
    run: (c) => c.find({ d: { $gt: new Date('2023-12-31') } }).sort({ d: -1 }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 3 }, { _id: 1 }],
  },
  {
    name: 'the $slice projection trims an array',
    seed: people,
    run: (c) => c.find({ _id: 1 }).project({ tags: { $slice: 1 }, name: 1 }).toArray(),
    expected: [{ _id: 1, name: 'ann', tags: ['a'] }],
  },
  {
    name: 'the positional projection returns the matched element',
    seed: [{ _id: 1, xs: [1, 5, 9] }],
    run: (c) => c.find({ xs: { $gt: 4 } }).project({ 'xs.$': 1 }).toArray(),
    expected: [{ _id: 1, xs: [5] }],
  },
  {
    name: '$expr compares two fields',
    seed: [{ _id: 1, a: 1, b: 2 }, { _id: 2, a: 3, b: 2 }],
    run: (c) => c.find({ $expr: { $gt: ['$a', '$b'] } }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 2 }],
  },
  {
    name: 'a $natural sort and hint give storage order, reversed for -1',
    seed: people,
    run: (c) => c.find({}).sort({ $natural: -1 }).hint({ $natural: -1 }).project({ _id: 1 }).limit(2).toArray(),
    expected: [{ _id: 5 }, { _id: 4 }],
  },
  {
    name: 'let values are evaluated before they reach $expr',
    seed: people,
    run: (c) => c.find({ $expr: { $gt: ['$age', '$$min'] } }, { let: { min: { $add: [20, 10] } } }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 3 }],
  },
  {
    name: 'let variables reach $expr',
    seed: people,
    run: (c) => c.find({ $expr: { $gt: ['$age', '$$min'] } }, { let: { min: 30 } }).project({ _id: 1 }).toArray(),
    expected: [{ _id: 1 }, { _id: 3 }],
  },
  {
    name: 'a negative skip is an error',
    seed: people,
    run: (c, db) => db.command({ find: c.collectionName, skip: -1 }),
    code: 51024,
  },
  {
    name: 'a filter that is not a document is TypeMismatch',
    run: (c, db) => db.command({ find: c.collectionName, filter: 1 }),
    code: 14,
  },
  {
    name: 'an unknown query operator is BadValue',
    seed: people,
    run: (c) => c.find({ age: { $bogus: 1 } }).toArray(),
    code: 2,
  },
  {
    // Backtracking V8 would spend about a minute on this one and block every connection meanwhile.
    name: 'a $regex with catastrophic backtracking still answers',
    seed: [{ _id: 1, s: `${'a'.repeat(30)}!` }, { _id: 2, s: 'aaa' }],
    run: (c) => c.find({ s: { $regex: '^(a+)+$' } }).toArray(),
    expected: [{ _id: 2, s: 'aaa' }],
  },
];

describeCompat('find', cases);
