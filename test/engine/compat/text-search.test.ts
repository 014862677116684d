import { type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { restarts } from '../support/restarts.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * Text indexes and `$text`, as a standalone mongod 7.0 answers: how the index
 * is stored and listed, which documents a search finds (terms OR-ed, exact
 * phrases, negations, English stemming and stop words, language `none`,
 * case and diacritic folding), mongod's textScore (per-field weights, term
 * frequency), and the refusals. Scores below are worked out by mongod's
 * formula: a term scores weight * freq * (0.5 + 0.5 * occurrences / terms in
 * the string), so "coffee" alone in the title "Coffee shop" scores 0.75.
 */

const articles = [
  { _id: 1, title: 'Coffee and cakes', body: 'The best coffee in town' },
  { _id: 2, title: 'Tea time', body: 'Green tea and black tea' },
  { _id: 3, title: 'Running shoes', body: 'Shoes for runners who run daily' },
  { _id: 4, title: 'Café culture', body: 'A CAFE on every corner' },
  { _id: 5, title: 'Coffee shop', body: 'shop local' },
];
const textIndex = [{ key: { title: 'text', body: 'text' } }];
const tagged = articles.map((a) => ({ ...a, tag: a._id % 2 === 1 ? 'odd' : 'even' }));
const weighted = [{ key: { title: 'text', body: 'text' }, options: { weights: { title: 10 } } }];

const ids = (docs: Document[]) => docs.map((d) => d._id);
/** A filter as written, checked by the server rather than the driver's types (the refusals need that). */
const raw = (filter: Document): Document => filter;
const search = async (c: LooseCollection, text: Document, filter: Document = {}) =>
  ids(await c.find(raw({ ...filter, $text: text })).sort({ _id: 1 }).toArray());

const cases: CompatCase[] = [
  // ---------------------------------------------------------------- the index
  {
    name: 'index: listIndexes shows the stored form (_fts/_ftsx key, weights, languages, version)',
    indexes: textIndex,
    run: async (c) => (await c.listIndexes().toArray())[1],
    expected: {
      v: 2,
      key: { _fts: 'text', _ftsx: 1 },
      name: 'title_text_body_text',
      weights: { body: 1, title: 1 },
      default_language: 'english',
      language_override: 'language',
      textIndexVersion: 3,
    },
  },
  {
    name: 'index: weights are whole numbers sorted by field, options kept as given',
    indexes: [
      { key: { z: 'text', a: 'text' }, options: { weights: { z: 2.7, extra: 3 }, default_language: 'none', language_override: 'lang', name: 'txt' } },
    ],
    run: async (c) => (await c.listIndexes().toArray())[1],
    expected: {
      v: 2,
      key: { _fts: 'text', _ftsx: 1 },
      name: 'txt',
      weights: { a: 1, extra: 3, z: 2 },
      default_language: 'none',
      language_override: 'lang',
      textIndexVersion: 3,
    },
  },
  {
    name: 'index: $** text and a compound text index keep their other key fields',
    run: async (c, db) => {
      await c.createIndex({ '$**': 'text' });
      const other = db.collection(`${c.collectionName}_b`);
      await other.createIndex({ category: 1, title: 'text', year: -1 });
      const [wild, compound] = [(await c.listIndexes().toArray())[1]!, (await other.listIndexes().toArray())[1]!];
      return [wild.name, wild.key, wild.weights, compound.name, compound.key, compound.weights];
    },
    expected: [
      '$**_text', { _fts: 'text', _ftsx: 1 }, { '$**': 1 },
      'category_1_title_text_year_-1', { category: 1, _fts: 'text', _ftsx: 1, year: -1 }, { title: 1 },
    ],
  },
  {
    name: 'index: creating the same text index again is a no-op',
    indexes: textIndex,
    run: async (c) => {
      await c.createIndex({ title: 'text', body: 'text' });
      return (await c.listIndexes().toArray()).length;
    },
    expected: 2,
  },

  // ---------------------------------------------------------------- matching
  {
    name: 'terms: any word matches (OR)',
    indexes: textIndex,
    seed: articles,
    run: (c) => search(c, { $search: 'coffee tea' }),
    expected: [1, 2, 5],
  },
  {
    name: 'terms: punctuation separates words',
    indexes: textIndex,
    seed: articles,
    run: (c) => search(c, { $search: 'tea,coffee.' }),
    expected: [1, 2, 5],
  },
  {
    name: 'phrases: "an exact phrase" must appear as written, case-insensitively',
    indexes: textIndex,
    seed: articles,
    run: (c) => search(c, { $search: '"COFFEE shop"' }),
    expected: [5],
  },
  {
    name: 'phrases: a phrase and a term both apply (the phrase is required)',
    indexes: textIndex,
    seed: articles,
    run: (c) => search(c, { $search: 'tea "best coffee"' }),
    expected: [1],
  },
  {
    name: 'negation: -word excludes documents holding it',
    indexes: textIndex,
    seed: articles,
    run: (c) => search(c, { $search: 'coffee -cakes' }),
    expected: [5],
  },
  {
    name: 'negation: a negated phrase excludes, and a search of negations only finds nothing',
    indexes: textIndex,
    seed: articles,
    run: async (c) => [await search(c, { $search: 'coffee -"best coffee"' }), await search(c, { $search: '-coffee' })],
    expected: [[5], []],
  },
  {
    name: 'negation: a minus inside a word is a separator, not a negation',
    indexes: textIndex,
    seed: articles,
    run: (c) => search(c, { $search: 'green-tea' }),
    expected: [2],
  },
  {
    name: 'stemming: English words meet by their stem (runners, running, run)',
    indexes: textIndex,
    seed: articles,
    run: async (c) => [await search(c, { $search: 'runner' }), await search(c, { $search: 'runs' }), await search(c, { $search: 'cake' })],
    expected: [[3], [3], [1]],
  },
  {
    name: 'stop words: a search of English stop words only finds nothing',
    indexes: textIndex,
    seed: articles,
    run: (c) => search(c, { $search: 'the and who on' }),
    expected: [],
  },
  {
    name: 'case and diacritics: folded by default',
    indexes: textIndex,
    seed: articles,
    run: async (c) => [await search(c, { $search: 'CAFÉ' }), await search(c, { $search: 'cafe' })],
    expected: [[4], [4]],
  },
  {
    name: 'case: $caseSensitive compares the word as written',
    indexes: textIndex,
    seed: articles,
    run: async (c) => [
      await search(c, { $search: 'Coffee', $caseSensitive: true }),
      await search(c, { $search: 'coffee', $caseSensitive: true }),
    ],
    expected: [[1, 5], [1]],
  },
  {
    name: 'diacritics: $diacriticSensitive tells café from cafe',
    indexes: textIndex,
    seed: [
      { _id: 1, title: 'café' },
      { _id: 2, title: 'cafe' },
    ],
    run: async (c) => [
      await search(c, { $search: 'café', $diacriticSensitive: true }),
      await search(c, { $search: 'cafe', $diacriticSensitive: true }),
      await search(c, { $search: 'cafe' }),
    ],
    expected: [[1], [2], [1, 2]],
  },
  {
    name: 'language none: a $language none query is not stemmed (the English index is)',
    indexes: textIndex,
    seed: articles,
    run: async (c) => [await search(c, { $search: 'running', $language: 'none' }), await search(c, { $search: 'run', $language: 'none' })],
    expected: [[], [3]],
  },
  {
    name: 'language none: an index with default_language none keeps stop words and whole words',
    indexes: [{ key: { title: 'text', body: 'text' }, options: { default_language: 'none' } }],
    seed: articles,
    run: async (c) => [await search(c, { $search: 'the' }), await search(c, { $search: 'runner' }), await search(c, { $search: 'runners' })],
    expected: [[1], [], [3]],
  },
  {
    name: 'language override: a document in language none is indexed without stemming',
    indexes: textIndex,
    seed: [
      { _id: 1, title: 'running', language: 'none' },
      { _id: 2, title: 'running' },
    ],
    run: async (c) => [await search(c, { $search: 'run' }), await search(c, { $search: 'running', $language: 'none' })],
    expected: [[2], [1]],
  },
  {
    name: 'language override: a field name such as toString is only the document\'s own field',
    indexes: [{ key: { title: 'text' }, options: { language_override: 'toString' } }],
    seed: [
      { _id: 1, title: 'running' },
      { _id: 2, title: 'running', toString: 'none' },
    ],
    run: (c) => search(c, { $search: 'run' }),
    expected: [1],
  },
  {
    name: 'languages: mongod language names and codes are accepted',
    indexes: [{ key: { title: 'text' }, options: { default_language: 'fr' } }],
    seed: [{ _id: 1, title: 'le chat noir' }],
    run: async (c) => [await search(c, { $search: 'chat' }), await search(c, { $search: 'noir', $language: 'Spanish' })],
    expected: [[1], [1]],
  },
  {
    name: 'fields: only indexed fields are searched; arrays and sub-documents by path',
    indexes: [{ key: { title: 'text', 'tags.name': 'text' } }],
    seed: [
      { _id: 1, title: 'plain', other: 'coffee' },
      { _id: 2, title: 'plain', tags: [{ name: 'coffee' }, { name: 'tea' }] },
      { _id: 3, title: ['iced', 'coffee'] },
    ],
    run: (c) => search(c, { $search: 'coffee' }),
    expected: [2, 3],
  },
  {
    name: 'wildcard: $** searches every string field, nested too',
    indexes: [{ key: { '$**': 'text' } }],
    seed: [
      { _id: 1, a: 'coffee' },
      { _id: 2, b: { c: ['tea', 'coffee'] } },
      { _id: 3, n: 5 },
    ],
    run: (c) => search(c, { $search: 'coffee' }),
    expected: [1, 2],
  },
  {
    name: 'filters: $text goes with other conditions, in a top-level $and too',
    indexes: textIndex,
    seed: articles,
    run: async (c) => [
      await search(c, { $search: 'coffee' }, { _id: { $gt: 1 } }),
      ids(await c.find({ $and: [{ _id: { $lt: 5 } }, { $text: { $search: 'coffee' } }] }).toArray()),
    ],
    expected: [[5], [1]],
  },
  {
    name: 'count and countDocuments with $text',
    indexes: textIndex,
    seed: articles,
    run: async (c) => [await c.countDocuments({ $text: { $search: 'coffee tea' } }), await c.countDocuments({ $text: { $search: 'zzz' } })],
    expected: [3, 0],
  },
  {
    name: 'explain executionStats counts what a $text find returns',
    indexes: textIndex,
    seed: articles,
    run: async (c) => {
      const explained = await c.find(raw({ $text: { $search: 'coffee' } })).explain('executionStats');
      return explained.executionStats.nReturned;
    },
    expected: 2,
  },
  {
    name: 'updates and deletes take $text',
    indexes: textIndex,
    seed: articles,
    run: async (c) => {
      const updated = await c.updateMany({ $text: { $search: 'tea' } }, { $set: { hot: true } });
      const deleted = await c.deleteMany({ $text: { $search: 'coffee' } });
      return [updated.modifiedCount, deleted.deletedCount, await c.countDocuments()];
    },
    expected: [1, 2, 3],
  },

  // ---------------------------------------------------------------- textScore
  {
    name: 'textScore projection: term frequency over each field (title "Coffee shop" 0.75, two fields add up)',
    indexes: textIndex,
    seed: articles,
    run: async (c) =>
      (await c.find({ $text: { $search: 'coffee' } }, { projection: { _id: 1, score: { $meta: 'textScore' } } }).sort({ _id: 1 }).toArray()),
    expected: [
      { _id: 1, score: 0.75 + (0.5 / 3 + 0.5) },
      { _id: 5, score: 0.75 },
    ],
  },
  {
    name: 'textScore projection alone keeps the whole document and adds the score',
    indexes: textIndex,
    seed: [{ _id: 1, title: 'tea' }],
    run: async (c) => c.find({ $text: { $search: 'tea' } }, { projection: { score: { $meta: 'textScore' } } }).toArray(),
    // A string that is exactly the term gets a 1.1 boost.
    expected: [{ _id: 1, title: 'tea', score: 1.1 }],
  },
  {
    name: 'textScore: a repeated term counts 1 + 1/2 + ..., scaled by its share of the words',
    indexes: textIndex,
    seed: articles,
    run: async (c) => (await c.find({ $text: { $search: 'tea' } }, { projection: { _id: 0, score: { $meta: 'textScore' } } }).toArray()),
    // `_id: 0` with a $meta is an exclusion projection: the rest of the document stays.
    // title "Tea time": 0.75; body "Green tea and black tea": 1.5 * (0.5 * 2/4 + 0.5).
    expected: [{ title: 'Tea time', body: 'Green tea and black tea', score: 0.75 + 1.125 }],
  },
  {
    name: 'weights: a title weight of 10 scales the title part of the score',
    indexes: weighted,
    seed: articles,
    run: async (c) =>
      (await c.find({ $text: { $search: 'coffee tea' } }, { projection: { _id: 1, score: { $meta: 'textScore' } } }).sort({ _id: 1 }).toArray()),
    expected: [
      { _id: 1, score: 7.5 + (0.5 / 3 + 0.5) },
      { _id: 2, score: 7.5 + 1.125 },
      { _id: 5, score: 7.5 },
    ],
  },
  {
    name: 'textScore sort: find sorts by score, highest first, without projecting it',
    indexes: weighted,
    seed: articles,
    run: async (c) => ids(await c.find({ $text: { $search: 'coffee tea' } }).sort({ score: { $meta: 'textScore' } }).toArray()),
    expected: [2, 1, 5],
  },
  {
    name: 'textScore sort then another key',
    indexes: textIndex,
    seed: [
      { _id: 1, title: 'tea', n: 2 },
      { _id: 2, title: 'tea', n: 1 },
      { _id: 3, title: 'tea tea tea', n: 0 },
    ],
    run: async (c) => ids(await c.find({ $text: { $search: 'tea' } }).sort({ s: { $meta: 'textScore' }, n: 1 }).toArray()),
    expected: [3, 2, 1],
  },
  {
    name: 'aggregate: $sort, $project and $addFields read the textScore',
    indexes: weighted,
    seed: articles,
    run: async (c) =>
      c
        .aggregate([
          { $match: { $text: { $search: 'coffee tea' } } },
          { $sort: { score: { $meta: 'textScore' } } },
          { $project: { _id: 1, score: { $meta: 'textScore' } } },
          { $addFields: { twice: { $multiply: [{ $meta: 'textScore' }, 2] } } },
          { $limit: 2 },
        ])
        .toArray(),
    expected: [
      { _id: 2, score: 8.625, twice: 17.25 },
      { _id: 1, score: 7.5 + (0.5 / 3 + 0.5), twice: 2 * (7.5 + (0.5 / 3 + 0.5)) },
    ],
  },

  {
    name: 'aggregate: $unwind and $facet keep each document\'s textScore',
    indexes: weighted,
    seed: [{ _id: 1, title: 'tea', tags: ['a', 'b'] }],
    run: async (c) =>
      c
        .aggregate([
          { $match: { $text: { $search: 'tea' } } },
          { $unwind: '$tags' },
          { $facet: { scored: [{ $project: { _id: 0, tags: 1, score: { $meta: 'textScore' } } }] } },
        ])
        .toArray(),
    // "tea" alone in the title: 10 * 1.1.
    expected: [{ scored: [{ tags: 'a', score: 11 }, { tags: 'b', score: 11 }] }],
  },

  // ---------------------------------------------------------------- compound
  {
    name: 'compound text index: the prefix field takes an equality, then the text search',
    indexes: [{ key: { category: 1, title: 'text' } }],
    seed: [
      { _id: 1, category: 'drinks', title: 'coffee' },
      { _id: 2, category: 'food', title: 'coffee cake' },
      { _id: 3, category: 'drinks', title: 'tea' },
    ],
    run: async (c) => [await search(c, { $search: 'coffee' }, { category: 'drinks' }), await search(c, { $search: 'coffee' }, { category: 'food' })],
    expected: [[1], [2]],
  },
  {
    name: 'compound text index: without an equality on the prefix field (NoQueryExecutionPlans)',
    indexes: [{ key: { category: 1, title: 'text' } }],
    seed: [{ _id: 1, category: 'drinks', title: 'coffee' }],
    run: (c) => c.find({ $text: { $search: 'coffee' }, category: { $gt: 'a' } }).toArray(),
    code: 291,
  },

  // ---------------------------------------------------------------- refusals
  {
    name: 'refusal: $text without a text index (IndexNotFound)',
    seed: articles,
    run: (c) => c.find({ $text: { $search: 'coffee' } }).toArray(),
    code: 27,
  },
  {
    name: 'refusal: $text on a missing collection (IndexNotFound)',
    run: (c) => c.find({ $text: { $search: 'coffee' } }).toArray(),
    code: 27,
  },
  {
    name: 'refusal: a second text index with the same key pattern (IndexOptionsConflict)',
    indexes: textIndex,
    run: (c) => c.createIndex({ other: 'text' }),
    code: 85,
  },
  {
    name: 'refusal: a second, compound, text index (CannotCreateIndex)',
    indexes: textIndex,
    run: (c) => c.createIndex({ a: 1, other: 'text' }),
    code: 67,
  },
  {
    name: 'refusal: text fields not adjacent in the key (CannotCreateIndex)',
    run: (c) => c.createIndex({ a: 'text', b: 1, c: 'text' }),
    code: 67,
  },
  {
    name: 'refusal: a weight that is not a number (CannotCreateIndex)',
    run: (c) => c.createIndex({ a: 'text' }, { weights: { a: 'heavy' } }),
    code: 67,
  },
  {
    name: 'refusal: a weight out of range (CannotCreateIndex)',
    run: (c) => c.createIndex({ a: 'text' }, { weights: { a: 100000 } }),
    code: 67,
  },
  {
    name: 'refusal: an unknown default_language (CannotCreateIndex)',
    run: (c) => c.createIndex({ a: 'text' }, { default_language: 'klingon' }),
    code: 67,
  },
  {
    name: 'refusal: textIndexVersion 4 (CannotCreateIndex)',
    run: (c) => c.createIndex({ a: 'text' }, { textIndexVersion: 4 }),
    code: 67,
  },
  {
    name: 'refusal: a text index on a collection with a default collation (CannotCreateIndex)',
    run: async (c, db) => {
      await db.createCollection(c.collectionName, { collation: { locale: 'en', strength: 2 } });
      return c.createIndex({ a: 'text' });
    },
    code: 67,
  },
  {
    name: 'collation: a text index on a collated collection is created with the simple collation',
    run: async (c, db) => {
      await db.createCollection(c.collectionName, { collation: { locale: 'en', strength: 2 } });
      await c.createIndex({ a: 'text' }, { collation: { locale: 'simple' } });
      const index = (await c.listIndexes().toArray())[1]!;
      return [index.name, index.collation];
    },
    expected: ['a_text', undefined],
  },
  {
    name: 'refusal: a document naming an unknown language is not inserted',
    indexes: textIndex,
    run: (c) => c.insertOne({ _id: 1, title: 'x', language: 'klingon' }),
    code: 17262,
  },
  {
    name: 'refusal: an unknown $language (BadValue)',
    indexes: textIndex,
    seed: articles,
    run: (c) => c.find({ $text: { $search: 'coffee', $language: 'klingon' } }).toArray(),
    code: 2,
  },
  {
    name: 'refusal: $text without $search (NoSuchKey)',
    indexes: textIndex,
    run: (c) => c.find(raw({ $text: {} })).toArray(),
    code: 4,
  },
  {
    name: 'refusal: $search that is not a string (TypeMismatch)',
    indexes: textIndex,
    run: (c) => c.find(raw({ $text: { $search: 5 } })).toArray(),
    code: 14,
  },
  {
    name: 'refusal: an unknown field in $text (BadValue)',
    indexes: textIndex,
    run: (c) => c.find(raw({ $text: { $search: 'x', $fuzzy: true } })).toArray(),
    code: 2,
  },
  {
    name: 'refusal: two $text (BadValue)',
    indexes: textIndex,
    run: (c) => c.find({ $and: [{ $text: { $search: 'a' } }, { $text: { $search: 'b' } }] }).toArray(),
    code: 2,
  },
  {
    name: 'refusal: $text under $nor (BadValue)',
    indexes: textIndex,
    run: (c) => c.find({ $nor: [{ $text: { $search: 'a' } }] }).toArray(),
    code: 2,
  },
  // ---------------------------------------------------------------- under $or
  {
    name: '$text under $or: with the other clause indexed, documents matching either',
    indexes: [...textIndex, { key: { tag: 1 } }],
    seed: tagged,
    run: async (c) => ids(await c.find({ $or: [{ $text: { $search: 'tea' } }, { tag: 'odd' }] }).sort({ _id: 1 }).toArray()),
    expected: [1, 2, 3, 5],
  },
  {
    name: '$text under $or: a clause on _id uses its index',
    indexes: textIndex,
    seed: articles,
    run: async (c) => ids(await c.find({ $or: [{ _id: { $in: [1, 2] } }, { $text: { $search: 'shoes' } }] }).sort({ _id: 1 }).toArray()),
    expected: [1, 2, 3],
  },
  {
    name: '$text under $or: the $text clause with a condition of its own, beside a top-level condition',
    indexes: [...textIndex, { key: { tag: 1 } }],
    seed: tagged,
    run: async (c) =>
      ids(await c.find({ $or: [{ $text: { $search: 'coffee' }, _id: { $gt: 1 } }, { tag: 'even' }], _id: { $lt: 5 } }).sort({ _id: 1 }).toArray()),
    expected: [2, 4],
  },
  {
    name: '$text under $or: each clause of a nested $or indexed',
    indexes: [...textIndex, { key: { tag: 1 } }],
    seed: tagged,
    run: async (c) => ids(await c.find({ $or: [{ $text: { $search: 'tea' } }, { $or: [{ tag: 'odd' }, { _id: 4 }] }] }).sort({ _id: 1 }).toArray()),
    expected: [1, 2, 3, 4, 5],
  },
  {
    name: '$text under $or: in a $or nested in another (flattened as mongod does)',
    indexes: [...textIndex, { key: { tag: 1 } }],
    seed: tagged,
    run: async (c) => ids(await c.find({ $or: [{ $or: [{ $text: { $search: 'tea' } }, { tag: 'odd' }] }, { _id: 4 }] }).sort({ _id: 1 }).toArray()),
    expected: [1, 2, 3, 4, 5],
  },
  {
    name: '$text under $or: count and aggregate answer the same',
    indexes: [...textIndex, { key: { tag: 1 } }],
    seed: tagged,
    run: async (c) => {
      const filter = { $or: [{ $text: { $search: 'tea' } }, { tag: 'odd' }] };
      return [await c.countDocuments(filter), ids(await c.aggregate([{ $match: filter }, { $sort: { _id: -1 } }]).toArray())];
    },
    expected: [4, [5, 3, 2, 1]],
  },
  {
    name: 'refusal: $text under $or beside a clause whose only index is hidden (NoQueryExecutionPlans)',
    indexes: [...textIndex, { key: { tag: 1 }, options: { hidden: true } }],
    seed: tagged,
    run: (c) => c.find({ $or: [{ $text: { $search: 'tea' } }, { tag: 'odd' }] }).toArray(),
    code: 291,
  },
  {
    name: 'refusal: $text under $or beside a nested $or with a clause no index answers (NoQueryExecutionPlans)',
    indexes: [...textIndex, { key: { tag: 1 } }],
    seed: tagged,
    run: (c) => c.find({ $or: [{ $text: { $search: 'tea' } }, { $or: [{ tag: 'odd' }, { title: 'x' }] }] }).toArray(),
    code: 291,
  },
  {
    name: 'refusal: two $text under one $or (BadValue)',
    indexes: textIndex,
    run: (c) => c.find({ $or: [{ $text: { $search: 'a' } }, { $text: { $search: 'b' } }] }).toArray(),
    code: 2,
  },
  {
    name: 'refusal: $text under $or with a clause no index answers (NoQueryExecutionPlans)',
    indexes: textIndex,
    seed: articles,
    run: (c) => c.find({ $or: [{ title: 'x' }, { $text: { $search: 'a' } }] }).toArray(),
    code: 291,
  },
  {
    name: 'refusal: $text in a $match that is not the first stage',
    indexes: textIndex,
    seed: articles,
    run: (c) => c.aggregate([{ $match: { _id: 1 } }, { $match: { $text: { $search: 'coffee' } } }]).toArray(),
    code: 17313,
  },
  {
    name: 'refusal: sort by textScore without $text',
    indexes: textIndex,
    seed: articles,
    run: (c) => c.find({}).sort({ score: { $meta: 'textScore' } }).toArray(),
    code: 40218,
  },
  {
    name: 'refusal: project a textScore without $text',
    indexes: textIndex,
    seed: articles,
    run: (c) => c.find({}, { projection: { score: { $meta: 'textScore' } } }).toArray(),
    code: 40218,
  },
  {
    name: 'refusal: an aggregate textScore without $text in the first $match',
    indexes: textIndex,
    seed: articles,
    run: (c) => c.aggregate([{ $match: {} }, { $sort: { score: { $meta: 'textScore' } } }]).toArray(),
    code: 40218,
  },
];

describeCompat('text search', cases);

/** A text index's stored spec, and the searches it answers, survive a restart on lmdb. */
describe('text search: durability across a restart on lmdb', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-text');

  it('keeps the text index spec (weights, languages) and searches with it', async () => {
    const dbPath = tempDir();
    const spec = { weights: { title: 10 }, default_language: 'none', language_override: 'lang' };
    await withClient(dbPath, async (client) => {
      const c: LooseCollection = client.db('app').collection('articles');
      await c.createIndex({ title: 'text', body: 'text' }, spec);
      await c.insertMany(articles.map((a) => ({ ...a })));
    });
    const [index, found] = await withClient(dbPath, async (client) => {
      const c = client.db('app').collection<Document>('articles');
      const listed = (await c.listIndexes().toArray())[1];
      const docs = await c
        .find({ $text: { $search: 'running' } }, { projection: { _id: 1, score: { $meta: 'textScore' } } })
        .toArray();
      return [listed, docs];
    });
    expect(index).toEqual({
      v: 2,
      key: { _fts: 'text', _ftsx: 1 },
      name: 'title_text_body_text',
      weights: { body: 1, title: 10 },
      default_language: 'none',
      language_override: 'lang',
      textIndexVersion: 3,
    });
    // Language none: "running" is a whole word of the title (weight 10), not stemmed.
    expect(found).toEqual([{ _id: 3, score: 7.5 }]);
  });
});
