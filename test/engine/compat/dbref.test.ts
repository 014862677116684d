import { DBRef, ObjectId } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * DBRefs as mongod matches them: documents with `$ref`, `$id` (and `$db`)
 * fields, which a query names in `$elemMatch` (where any of them makes the
 * document form), in dotted paths, and whole. js-bson gives the engine DBRef
 * objects for both, which matched nothing before.
 */

const a = new ObjectId('64b000000000000000000001');
const b = new ObjectId('64b000000000000000000002');

const seed = [
  { _id: 1, refs: [new DBRef('coll', a), new DBRef('coll', b)] },
  { _id: 2, refs: [new DBRef('other', a, 'elsewhere')] },
  { _id: 3, ref: new DBRef('coll', a) },
];

const ids = (docs: { _id: number }[]) => docs.map((d) => d._id);

const cases: CompatCase[] = [
  {
    name: '$elemMatch on $id and $ref (as mongoose casts it)',
    seed,
    run: async (c) => ids(await c.find({ refs: { $elemMatch: { $id: a, $ref: 'coll' } } }).toArray()),
    expected: [1],
  },
  {
    name: '$elemMatch on $ref and $id',
    seed,
    run: async (c) => ids(await c.find({ refs: { $elemMatch: { $ref: 'coll', $id: b } } }).toArray()),
    expected: [1],
  },
  {
    name: '$elemMatch on $id alone',
    seed,
    run: async (c) => ids(await c.find({ refs: { $elemMatch: { $id: a } } }).toArray()),
    expected: [1, 2],
  },
  {
    name: '$elemMatch on $ref alone',
    seed,
    run: async (c) => ids(await c.find({ refs: { $elemMatch: { $ref: 'other' } } }).toArray()),
    expected: [2],
  },
  {
    name: '$elemMatch on $db and $id',
    seed,
    run: async (c) => ids(await c.find({ refs: { $elemMatch: { $db: 'elsewhere', $id: a } } }).toArray()),
    expected: [2],
  },
  {
    // mongod parses a $ref/$id/$db field as an equality with its value as written.
    name: 'an operator object under $id is a literal value',
    seed,
    run: async (c) => ids(await c.find({ refs: { $elemMatch: { $ref: 'coll', $id: { $in: [a, b] } } } }).toArray()),
    expected: [],
  },
  {
    name: 'a dotted path through an array of DBRefs',
    seed,
    run: async (c) => ids(await c.find({ 'refs.$id': a }).toArray()),
    expected: [1, 2],
  },
  {
    name: 'a dotted path into one DBRef',
    seed,
    run: async (c) => ids(await c.find({ 'ref.$ref': 'coll', 'ref.$id': a }).toArray()),
    expected: [3],
  },
  {
    name: 'a whole DBRef as the value',
    seed,
    run: async (c) => ids(await c.find({ ref: new DBRef('coll', a) }).toArray()),
    expected: [3],
  },
  {
    name: 'a stored DBRef comes back as a DBRef',
    seed,
    run: async (c) => {
      const ref = (await c.findOne({ _id: 2 }))!.refs[0] as DBRef;
      return [ref instanceof DBRef, ref.collection, ref.oid, ref.db];
    },
    expected: [true, 'other', a, 'elsewhere'],
  },
];

describeCompat('dbref', cases);
