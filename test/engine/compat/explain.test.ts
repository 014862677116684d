import { type Db, type Document, Double, Long } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';
import { stages } from './explain-helpers.js';

/**
 * explain of each explainable command: whether the read uses an index
 * (IXSCAN under FETCH, with its name and bounds) or scans the collection,
 * what it examines, and that explaining a write changes nothing.
 */
const seed = Array.from({ length: 10 }, (_, i) => ({ _id: i + 1, a: i + 1, b: i % 2 }));
const indexes = [{ key: { a: 1 } }];

/** The access stage of a plan: the IXSCAN (its index and bounds, not its key pattern: explain-helpers.ts's has it) or the COLLSCAN. */
function access(plan: Document): Document {
  let stage = plan;
  while (stage.inputStage) stage = stage.inputStage;
  return stage.stage === 'IXSCAN' ? { stage: 'IXSCAN', indexName: stage.indexName, indexBounds: stage.indexBounds } : { stage: stage.stage };
}

const explain = (db: Db, command: Document, verbosity = 'queryPlanner') => db.command({ explain: command, verbosity });

const cases: CompatCase[] = [
  {
    name: 'find on an indexed field: FETCH over IXSCAN with the index and its bounds',
    seed,
    indexes,
    run: async (c) => {
      const r = await c.find({ a: 3 }).explain('queryPlanner');
      return { ns: r.queryPlanner.namespace === c.namespace, parsedQuery: r.queryPlanner.parsedQuery, stages: stages(r.queryPlanner.winningPlan), access: access(r.queryPlanner.winningPlan), rejected: r.queryPlanner.rejectedPlans };
    },
    expected: { ns: true, parsedQuery: { a: { $eq: 3 } }, stages: ['FETCH', 'IXSCAN'], access: { stage: 'IXSCAN', indexName: 'a_1', indexBounds: { a: ['[3, 3]'] } }, rejected: [] },
  },
  {
    name: 'find on an unindexed field: COLLSCAN',
    seed,
    indexes,
    run: async (c) => access((await c.find({ b: 1 }).explain('queryPlanner')).queryPlanner.winningPlan),
    expected: { stage: 'COLLSCAN' },
  },
  {
    name: 'a range on an indexed field is an IXSCAN with open bounds',
    seed,
    indexes,
    run: async (c) => access((await c.find({ a: { $gt: 5 } }).explain('queryPlanner')).queryPlanner.winningPlan),
    expected: { stage: 'IXSCAN', indexName: 'a_1', indexBounds: { a: ['(5, inf.0]'] } },
  },
  {
    name: 'executionStats counts what an index scan examines',
    seed,
    indexes,
    run: async (c) => {
      const { executionStats: s } = await c.find({ a: { $lte: 3 } }).explain('executionStats');
      return { ok: s.executionSuccess, nReturned: s.nReturned, keys: s.totalKeysExamined, docs: s.totalDocsExamined, millis: typeof s.executionTimeMillis };
    },
    expected: { ok: true, nReturned: 3, keys: 3, docs: 3, millis: 'number' },
  },
  {
    name: 'executionStats of a collection scan examines every document',
    seed,
    run: async (c) => {
      const { executionStats: s } = await c.find({ b: 0 }).explain('executionStats');
      return { nReturned: s.nReturned, keys: s.totalKeysExamined, docs: s.totalDocsExamined, stage: s.executionStages.stage };
    },
    expected: { nReturned: 5, keys: 0, docs: 10, stage: 'COLLSCAN' },
  },
  {
    name: '$expr equality of an indexed field and a constant is an IXSCAN with its point (either way round, in $literal, in its $and)',
    seed,
    indexes,
    run: async (c) => {
      const plan = async (expr: Document) => access((await c.find({ $expr: expr }).explain('queryPlanner')).queryPlanner.winningPlan);
      const { executionStats: s } = await c.find({ $expr: { $eq: ['$a', 3] } }).explain('executionStats');
      return {
        field: await plan({ $eq: ['$a', 3] }),
        reversed: await plan({ $eq: [{ $literal: 4 }, '$a'] }),
        inAnd: await plan({ $and: [{ $gt: ['$b', -1] }, { $eq: ['$a', 5] }] }),
        examined: { nReturned: s.nReturned, keys: s.totalKeysExamined, docs: s.totalDocsExamined },
      };
    },
    expected: {
      field: { stage: 'IXSCAN', indexName: 'a_1', indexBounds: { a: ['[3, 3]'] } },
      reversed: { stage: 'IXSCAN', indexName: 'a_1', indexBounds: { a: ['[4, 4]'] } },
      inAnd: { stage: 'IXSCAN', indexName: 'a_1', indexBounds: { a: ['[5, 5]'] } },
      examined: { nReturned: 1, keys: 1, docs: 1 },
    },
  },
  {
    name: 'an $expr range, or an equality of two fields, scans the collection (an expression compares across types)',
    seed,
    indexes,
    run: async (c) => {
      const plan = async (expr: Document) => access((await c.find({ $expr: expr }).explain('queryPlanner')).queryPlanner.winningPlan).stage;
      return [await plan({ $lt: ['$a', 3] }), await plan({ $eq: ['$a', '$b'] }), await plan({ $eq: ['$a', '$$NOW'] })];
    },
    expected: ['COLLSCAN', 'COLLSCAN', 'COLLSCAN'],
  },
  {
    name: '$expr equality through an index matches as the expression does: every numeric type of the value, never an array holding it, nor a missing field',
    seed: [{ _id: 1, a: 5 }, { _id: 2, a: new Double(5) }, { _id: 3, a: Long.fromNumber(5) }, { _id: 4, a: [5] }, { _id: 5, a: 6 }, { _id: 6 }, { _id: 7, a: null }, { _id: 8, a: '5' }],
    indexes,
    run: async (c) => {
      const byIndex = await c.find({ $expr: { $eq: ['$a', 5] } }).toArray();
      const byScan = await c.find({ $expr: { $eq: ['$a', 5] } }).hint({ $natural: 1 }).toArray();
      return { byIndex: byIndex.map((d) => d._id).sort(), byScan: byScan.map((d) => d._id).sort() };
    },
    expected: { byIndex: [1, 2, 3], byScan: [1, 2, 3] },
  },
  {
    name: 'sort and limit appear as a SORT stage with its limit',
    seed,
    run: async (c) => {
      const plan = (await c.find({}).sort({ b: -1 }).limit(2).explain('queryPlanner')).queryPlanner.winningPlan;
      return { stages: stages(plan), sortPattern: plan.sortPattern, limitAmount: plan.limitAmount };
    },
    expected: { stages: ['SORT', 'COLLSCAN'], sortPattern: { b: -1 }, limitAmount: 2 },
  },
  {
    name: 'a hint picks the hinted index',
    seed,
    indexes: [{ key: { a: 1 } }, { key: { b: 1 } }],
    run: async (c) => access((await c.find({ a: 2, b: 1 }).hint({ b: 1 }).explain('queryPlanner')).queryPlanner.winningPlan).indexName,
    expected: 'b_1',
  },
  {
    name: 'explain answers serverInfo and the explained command',
    seed,
    run: async (c) => {
      const r = await c.find({ a: 1 }).explain('queryPlanner');
      return { version: typeof r.serverInfo.version, command: r.command.find === c.collectionName, filter: r.command.filter, explainVersion: typeof r.explainVersion };
    },
    expected: { version: 'string', command: true, filter: { a: 1 }, explainVersion: 'string' },
  },
  {
    name: 'aggregate with a leading $match uses the index',
    seed,
    indexes,
    run: async (c) => {
      const r = await c.aggregate([{ $match: { a: 4 } }, { $group: { _id: '$b', n: { $sum: 1 } } }]).explain('queryPlanner');
      const planner = r.queryPlanner ?? r.stages[0].$cursor.queryPlanner;
      return access(planner.winningPlan).indexName;
    },
    expected: 'a_1',
  },
  {
    name: 'a find on a view is explained as its aggregation over the source collection',
    seed,
    indexes,
    run: async (c, db) => {
      const view = `${c.collectionName}_view`;
      await db.createCollection(view, { viewOn: c.collectionName, pipeline: [{ $match: { a: { $lte: 5 } } }] });
      const r = await db.collection(view).find({ b: 1 }).explain('queryPlanner');
      const planner = r.queryPlanner ?? r.stages[0].$cursor.queryPlanner;
      return { namespace: planner.namespace === c.namespace, index: access(planner.winningPlan).indexName };
    },
    expected: { namespace: true, index: 'a_1' },
  },
  {
    name: 'count with a query: COUNT over the index scan',
    seed,
    indexes,
    run: async (c, db) => {
      const r = await explain(db, { count: c.collectionName, query: { a: { $in: [1, 2] } } });
      return { root: r.queryPlanner.winningPlan.stage, access: access(r.queryPlanner.winningPlan) };
    },
    expected: { root: 'COUNT', access: { stage: 'IXSCAN', indexName: 'a_1', indexBounds: { a: ['[1, 1]', '[2, 2]'] } } },
  },
  {
    name: 'distinct with a query on an unindexed field scans the collection',
    seed,
    indexes,
    run: async (c, db) => access((await explain(db, { distinct: c.collectionName, key: 'a', query: { b: 1 } })).queryPlanner.winningPlan),
    expected: { stage: 'COLLSCAN' },
  },
  {
    name: 'explain of an update reports what it would modify and changes nothing',
    seed,
    indexes,
    run: async (c, db) => {
      const r = await explain(db, { update: c.collectionName, updates: [{ q: { a: { $lte: 2 } }, u: { $set: { b: 9 } }, multi: true }] }, 'executionStats');
      const root = r.executionStats.executionStages;
      return { root: root.stage, nMatched: root.nMatched, nWouldModify: root.nWouldModify, access: access(r.queryPlanner.winningPlan).indexName, unchanged: await c.countDocuments({ b: 9 }) };
    },
    expected: { root: 'UPDATE', nMatched: 2, nWouldModify: 2, access: 'a_1', unchanged: 0 },
  },
  {
    name: 'explain of a delete reports what it would delete and deletes nothing',
    seed,
    run: async (c, db) => {
      const r = await explain(db, { delete: c.collectionName, deletes: [{ q: { b: 1 }, limit: 0 }] }, 'executionStats');
      const root = r.executionStats.executionStages;
      return { root: root.stage, nWouldDelete: root.nWouldDelete, access: access(r.queryPlanner.winningPlan), left: await c.countDocuments() };
    },
    expected: { root: 'DELETE', nWouldDelete: 5, access: { stage: 'COLLSCAN' }, left: 10 },
  },
  {
    name: 'explain of findAndModify changes nothing',
    seed,
    indexes,
    run: async (c, db) => {
      const r = await explain(db, { findAndModify: c.collectionName, query: { a: 1 }, update: { $set: { b: 7 } } }, 'executionStats');
      return { root: r.queryPlanner.winningPlan.stage, access: access(r.queryPlanner.winningPlan).indexName, unchanged: await c.countDocuments({ b: 7 }) };
    },
    expected: { root: 'UPDATE', access: 'a_1', unchanged: 0 },
  },
  {
    name: 'explain of findAndModify with remove deletes nothing',
    seed,
    run: async (c, db) => {
      const r = await explain(db, { findAndModify: c.collectionName, query: { b: 0 }, remove: true }, 'executionStats');
      return { root: r.queryPlanner.winningPlan.stage, left: await c.countDocuments() };
    },
    expected: { root: 'DELETE', left: 10 },
  },
  {
    name: 'an explained write batch must hold one statement',
    seed,
    run: (c, db) => explain(db, { delete: c.collectionName, deletes: [{ q: {}, limit: 0 }, { q: {}, limit: 0 }] }),
    code: 16,
  },
  {
    name: 'an unknown verbosity is FailedToParse',
    run: (c, db) => explain(db, { find: c.collectionName }, 'everything'),
    code: 9,
  },
  {
    name: 'explaining an unknown command is CommandNotFound',
    run: (_c, db) => db.command({ explain: { noSuchCommand: 1 } }),
    code: 59,
  },
];

// ---------------------------------------------------------------- geo and text
const places = [
  { _id: 1, loc: { type: 'Point', coordinates: [0, 0] }, pos: [0, 0], kind: 'cafe' },
  { _id: 2, loc: { type: 'Point', coordinates: [0, 1] }, pos: [0, 1], kind: 'bar' },
  { _id: 3, loc: { type: 'Point', coordinates: [0, 2] }, pos: [0, 2], kind: 'cafe' },
  { _id: 4, loc: { type: 'Point', coordinates: [0, 30] }, pos: [0, 30], kind: 'cafe' },
  { _id: 5, kind: 'nowhere' },
];
const sphere = [{ key: { loc: '2dsphere' } }];
const flat = [{ key: { pos: '2d' } }];
const origin = { $geometry: { type: 'Point', coordinates: [0, 0] } };
/** The near stage as queryPlanner shows it. */
const nearPlan = (plan: Document) => {
  const near = plan.stage.startsWith('GEO_NEAR') ? plan : plan.inputStage;
  return { stages: stages(plan), keyPattern: near.keyPattern, indexName: near.indexName, indexVersion: near.indexVersion };
};

const articles = [
  { _id: 1, title: 'coffee and cake', tag: 'a' },
  { _id: 2, title: 'strong coffee', tag: 'b' },
  { _id: 3, title: 'green tea', tag: 'a' },
];
const textIndex = [{ key: { title: 'text' } }];

const searchCases: CompatCase[] = [
  {
    name: '$near on a 2dsphere index: GEO_NEAR_2DSPHERE with the index',
    seed: places,
    indexes: sphere,
    run: async (c) => nearPlan((await c.find({ loc: { $near: origin } }).explain('queryPlanner')).queryPlanner.winningPlan),
    expected: { stages: ['GEO_NEAR_2DSPHERE'], keyPattern: { loc: '2dsphere' }, indexName: 'loc_2dsphere', indexVersion: 2 },
  },
  {
    name: '$nearSphere on a 2dsphere index: GEO_NEAR_2DSPHERE',
    seed: places,
    indexes: sphere,
    run: async (c) => nearPlan((await c.find({ loc: { $nearSphere: origin } }).explain('queryPlanner')).queryPlanner.winningPlan).stages,
    expected: ['GEO_NEAR_2DSPHERE'],
  },
  {
    name: '$near with legacy coordinates on a 2d index: GEO_NEAR_2D with the index',
    seed: places,
    indexes: flat,
    run: async (c) => nearPlan((await c.find({ pos: { $near: [0, 0] } }).explain('queryPlanner')).queryPlanner.winningPlan),
    expected: { stages: ['GEO_NEAR_2D'], keyPattern: { pos: '2d' }, indexName: 'pos_2d', indexVersion: 2 },
  },
  {
    name: '$near with a limit: LIMIT over the near stage, and what it returns',
    seed: places,
    indexes: sphere,
    run: async (c) => {
      const r = await c.find({ loc: { $near: origin } }).limit(2).explain('executionStats');
      const s = r.executionStats;
      return { stages: stages(s.executionStages), nReturned: s.nReturned, stage: s.executionStages.inputStage.stage, intervals: Array.isArray(s.executionStages.inputStage.searchIntervals) };
    },
    expected: { stages: ['LIMIT', 'GEO_NEAR_2DSPHERE'], nReturned: 2, stage: 'GEO_NEAR_2DSPHERE', intervals: true },
  },
  {
    name: '$near with $maxDistance and another condition: executionStats counts the matches',
    seed: places,
    indexes: sphere,
    run: async (c) => {
      const r = await c.find({ loc: { $near: { ...origin, $maxDistance: 250000 } }, kind: 'cafe' }).explain('executionStats');
      return { nReturned: r.executionStats.nReturned, stageReturned: r.executionStats.executionStages.nReturned };
    },
    expected: { nReturned: 2, stageReturned: 2 },
  },
  {
    name: '$near with a sort: SORT over the near stage',
    seed: places,
    indexes: flat,
    run: async (c) => stages((await c.find({ pos: { $near: [0, 0] } }).sort({ kind: 1 }).explain('queryPlanner')).queryPlanner.winningPlan),
    expected: ['SORT', 'GEO_NEAR_2D'],
  },
  {
    name: '$near without a geo index cannot be explained either (NoQueryExecutionPlans)',
    seed: places,
    run: (c) => c.find({ loc: { $near: origin } }).explain('queryPlanner'),
    code: 291,
  },
  {
    name: '$near in an aggregate $match is refused in explain too (5626500)',
    seed: places,
    indexes: sphere,
    run: (c) => c.aggregate([{ $match: { loc: { $near: origin } } }]).explain('queryPlanner'),
    code: 5626500,
  },
  {
    name: '$text: TEXT_MATCH over FETCH over OR over the text index scan',
    seed: articles,
    indexes: textIndex,
    run: async (c) => {
      const plan = (await c.find({ $text: { $search: 'coffee -cake' } }).explain('queryPlanner')).queryPlanner.winningPlan;
      return { stages: stages(plan), indexName: plan.indexName, parsedTextQuery: plan.parsedTextQuery, indexPrefix: plan.indexPrefix, scan: access(plan) };
    },
    expected: {
      stages: ['TEXT_MATCH', 'FETCH', 'OR', 'IXSCAN'],
      indexName: 'title_text',
      parsedTextQuery: { terms: ['coffe'], negatedTerms: ['cake'], phrases: [], negatedPhrases: [] },
      indexPrefix: {},
      scan: { stage: 'IXSCAN', indexName: 'title_text', indexBounds: {} },
    },
  },
  {
    name: '$text with its textScore projected: TEXT_MATCH over TEXT_OR',
    seed: articles,
    indexes: textIndex,
    run: async (c) =>
      stages((await c.find({ $text: { $search: 'coffee' } }).project({ score: { $meta: 'textScore' } }).explain('queryPlanner')).queryPlanner.winningPlan),
    expected: ['PROJECTION_DEFAULT', 'TEXT_MATCH', 'TEXT_OR', 'IXSCAN'],
  },
  {
    name: '$text with another condition: executionStats counts what the search found and returned',
    seed: articles,
    indexes: textIndex,
    run: async (c) => {
      const s = (await c.find({ $text: { $search: 'coffee' }, tag: 'a' }).explain('executionStats')).executionStats;
      return { nReturned: s.nReturned, totalDocsExamined: s.totalDocsExamined, fetchFilter: s.executionStages.inputStage.filter };
    },
    expected: { nReturned: 1, totalDocsExamined: 2, fetchFilter: { tag: { $eq: 'a' } } },
  },
];

describeCompat('explain', [...cases, ...searchCases]);
