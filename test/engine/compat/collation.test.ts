import type { Document } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * Collation locales as mongod takes them (ICU locale IDs, variants after
 * `@collation=`), and mongod's refusals: an ID ICU would have to
 * canonicalise or does not know is BadValue (2), `simple` with other fields
 * is FailedToParse (9).
 */

const words = [
  { _id: 1, w: 'Äpfel' },
  { _id: 2, w: 'Affe' },
  { _id: 3, w: 'Apfel' },
  { _id: 4, w: 'apfel' },
];
const names = (docs: Document[]) => docs.map((d) => d.w as string);

const cases: CompatCase[] = [
  {
    name: 'en_US sorts case-insensitively at strength 1 and keeps ties in _id order',
    seed: words,
    run: async (c) => names(await c.find({}, { collation: { locale: 'en_US', strength: 1 } }).sort({ w: 1, _id: 1 }).toArray()),
    expected: ['Affe', 'Äpfel', 'Apfel', 'apfel'],
  },
  {
    name: 'en_US matches case-insensitively at strength 2 in find',
    seed: words,
    run: async (c) => (await c.find({ w: 'APFEL' }, { collation: { locale: 'en_US', strength: 2 } }).project({ _id: 1 }).toArray()).map((d) => d._id),
    expected: [3, 4],
  },
  {
    name: 'fr_CA in an aggregate $match and $sort',
    seed: words,
    run: async (c) =>
      names(await c.aggregate([{ $match: { w: 'apfel' } }, { $sort: { _id: -1 } }], { collation: { locale: 'fr_CA', strength: 1 } }).toArray()),
    expected: ['apfel', 'Apfel', 'Äpfel'],
  },
  {
    name: 'zh_Hant is accepted by find',
    seed: words,
    run: async (c) => (await c.find({}, { collation: { locale: 'zh_Hant' } }).toArray()).length,
    expected: 4,
  },
  {
    name: 'de@collation=phonebook sorts ä as ae',
    seed: [
      { _id: 1, w: 'Af' },
      { _id: 2, w: 'Ä' },
      { _id: 3, w: 'Ad' },
    ],
    run: async (c) => names(await c.find({}, { collation: { locale: 'de@collation=phonebook' } }).sort({ w: 1 }).toArray()),
    expected: ['Ad', 'Ä', 'Af'],
  },
  {
    name: 'en_US_POSIX is accepted',
    seed: words,
    run: async (c) => (await c.countDocuments({}, { collation: { locale: 'en_US_POSIX' } })),
    expected: 4,
  },
  {
    name: 'simple is binary order',
    seed: words,
    run: async (c) => names(await c.find({}, { collation: { locale: 'simple' } }).sort({ w: 1 }).toArray()),
    expected: ['Affe', 'Apfel', 'apfel', 'Äpfel'],
  },
  {
    name: 'a collection default collation with an ICU locale applies to find',
    run: async (c, db) => {
      await db.createCollection(c.collectionName, { collation: { locale: 'en_US', strength: 2 } });
      await c.insertMany([{ _id: 1, w: 'x' }, { _id: 2, w: 'X' }]);
      return c.countDocuments({ w: 'x' });
    },
    expected: 2,
  },
  {
    name: 'an index with a fr_CA collation is created and used by a matching query',
    indexes: [{ key: { w: 1 }, options: { collation: { locale: 'fr_CA', strength: 2 } } }],
    seed: words,
    run: async (c) => (await c.find({ w: 'apfel' }, { collation: { locale: 'fr_CA', strength: 2 } }).project({ _id: 1 }).toArray()).map((d) => d._id),
    expected: [3, 4],
  },
  {
    name: 'caseFirst upper sorts capitals first',
    seed: [
      { _id: 1, w: 'a' },
      { _id: 2, w: 'A' },
      { _id: 3, w: 'b' },
    ],
    run: async (c) => names(await c.find({}, { collation: { locale: 'en', caseFirst: 'upper' } }).sort({ w: 1 }).toArray()),
    expected: ['A', 'a', 'b'],
  },
  {
    name: 'caseFirst without caseLevel at strength 2 is BadValue',
    seed: words,
    run: (c) => c.find({}, { collation: { locale: 'en', strength: 2, caseFirst: 'upper' } }).toArray(),
    code: 2,
  },
  {
    name: 'backwards at strength 1 is BadValue',
    seed: words,
    run: (c) => c.find({}, { collation: { locale: 'fr_CA', strength: 1, backwards: true } }).toArray(),
    code: 2,
  },
  { name: 'a BCP 47 tag (en-US) is refused', seed: words, run: (c) => c.find({}, { collation: { locale: 'en-US' } }).toArray(), code: 2 },
  { name: 'a wrongly cased ID (en_us) is refused', seed: words, run: (c) => c.find({}, { collation: { locale: 'en_us' } }).toArray(), code: 2 },
  { name: 'an unknown locale is refused by find', seed: words, run: (c) => c.find({}, { collation: { locale: 'xx_YY' } }).toArray(), code: 2 },
  {
    name: 'an unknown locale is refused by aggregate',
    seed: words,
    run: (c) => c.aggregate([{ $sort: { w: 1 } }], { collation: { locale: 'klingon' } }).toArray(),
    code: 2,
  },
  { name: 'an unknown locale is refused on an empty collection', run: (c) => c.find({}, { collation: { locale: 'nope' } }).toArray(), code: 2 },
  {
    name: 'an unknown variant is refused',
    seed: words,
    run: (c) => c.find({}, { collation: { locale: 'en@collation=phonebook' } }).toArray(),
    code: 2,
  },
  { name: 'an empty locale is refused', seed: words, run: (c) => c.find({}, { collation: { locale: '' } }).toArray(), code: 2 },
  {
    name: 'simple with other fields is FailedToParse',
    seed: words,
    run: (c) => c.find({}, { collation: { locale: 'simple', strength: 1 } }).toArray(),
    code: 9,
  },
  {
    name: 'an unknown locale is refused by update',
    seed: words,
    run: (c) => c.updateMany({ w: 'x' }, { $set: { y: 1 } }, { collation: { locale: 'xx' } }),
    code: 2,
  },
  {
    name: 'an unknown locale is refused by create',
    run: (c, db) => db.createCollection(`${c.collectionName}_x`, { collation: { locale: 'xx' } }),
    code: 2,
  },
  {
    name: 'an unknown locale is refused by createIndex and creates nothing',
    run: (c) => c.createIndex({ w: 1 }, { collation: { locale: 'xx' } }),
    code: 2,
  },
];

describeCompat('collation', cases);
