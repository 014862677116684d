import type { Document } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * Index-provided sort: when an index gives the requested order (its key
 * fields after an equality-bound prefix are the sort's, all in its
 * directions or all reversed) the read walks it, forwards or backwards,
 * with no SORT stage, and stops after skip + limit matches. Results must be
 * exactly those of an in-memory sort; explain shows the stages, the
 * direction, the (compound) bounds and what the early stop examined.
 * Where an index cannot give the order (multikey, sparse, other collation,
 * mixed directions) the read falls back to a blocking sort.
 */

const TENANTS = ['a', 'b', 'c'];
/** 60 documents inserted in a shuffled `_id` order; `u` is unique, `del` marks every fifth as deleted. */
const docs: Document[] = Array.from({ length: 60 }, (_, i) => {
  const id = ((i * 37) % 60) + 1;
  return { _id: id, t: TENANTS[id % 3], n: (id * 7) % 11, u: (id * 13) % 61, del: id % 5 === 0 ? true : null };
});

type Cmp = (a: Document, b: Document) => number;
const by =
  (...keys: Array<[string, 1 | -1]>): Cmp =>
  (a, b) => {
    for (const [k, d] of keys) if (a[k] !== b[k]) return (a[k] < b[k] ? -1 : 1) * d;
    return 0;
  };

/** The in-memory answer: filter, sort, skip, limit, as ids. */
function expectedIds(match: (d: Document) => boolean, cmp: Cmp, skip = 0, limit = 0): number[] {
  const all = docs.filter(match).sort(cmp);
  return (limit > 0 ? all.slice(skip, skip + limit) : all.slice(skip)).map((d) => d._id);
}

const ids = (found: Document[]) => found.map((d) => d._id);

/** Stage names from the root down. */
function stages(plan: Document): string[] {
  const out: string[] = [];
  for (let stage: Document | undefined = plan; stage; stage = stage.inputStage) out.push(stage.stage);
  return out;
}

function ixscan(plan: Document): Document | undefined {
  let stage: Document | undefined = plan;
  while (stage && stage.stage !== 'IXSCAN') stage = stage.inputStage;
  return stage && { indexName: stage.indexName, direction: stage.direction, indexBounds: stage.indexBounds };
}

/** What explain('executionStats') says of a find: stages, the index scan, keys and documents examined. */
async function explained(cursor: { explain(v: 'executionStats'): Promise<Document> }): Promise<Document> {
  const r = await cursor.explain('executionStats');
  const plan = r.queryPlanner.winningPlan;
  const s = r.executionStats;
  return { stages: stages(plan), scan: ixscan(plan), nReturned: s.nReturned, keys: s.totalKeysExamined, docs: s.totalDocsExamined };
}

/** How many `_id_`-ordered documents a scan reads before `n` of them match. */
function examinedUntil(match: (d: Document) => boolean, cmp: Cmp, n: number, candidates: (d: Document) => boolean = () => true): number {
  let examined = 0;
  let found = 0;
  for (const d of docs.filter(candidates).sort(cmp)) {
    examined++;
    if (match(d) && ++found >= n) break;
  }
  return examined;
}

const live = (t: string) => (d: Document) => d.t === t && d.del === null;
const byId = by(['_id', 1]);
const tenantIdIndex = [{ key: { t: 1, _id: 1 } }];
const tenantB = expectedIds((d) => d.t === 'b', by(['_id', -1]));
const compound = [{ key: { t: 1, n: -1, _id: 1 } }];

const cases: CompatCase[] = [
  {
    name: 'sort {_id: 1} with a limit walks _id_ and stops after the limit',
    seed: docs,
    run: async (c) => ({ ids: ids(await c.find().sort({ _id: 1 }).limit(5).toArray()), explain: await explained(c.find().sort({ _id: 1 }).limit(5)) }),
    expected: {
      ids: [1, 2, 3, 4, 5],
      explain: { stages: ['LIMIT', 'FETCH', 'IXSCAN'], scan: { indexName: '_id_', direction: 'forward', indexBounds: { _id: ['[MinKey, MaxKey]'] } }, nReturned: 5, keys: 5, docs: 5 },
    },
  },
  {
    name: 'sort {_id: -1} with skip and limit walks _id_ backwards',
    seed: docs,
    run: async (c) => ({
      ids: ids(await c.find().sort({ _id: -1 }).skip(3).limit(4).toArray()),
      explain: await explained(c.find().sort({ _id: -1 }).skip(3).limit(4)),
    }),
    expected: {
      ids: [57, 56, 55, 54],
      explain: { stages: ['LIMIT', 'SKIP', 'FETCH', 'IXSCAN'], scan: { indexName: '_id_', direction: 'backward', indexBounds: { _id: ['[MaxKey, MinKey]'] } }, nReturned: 4, keys: 7, docs: 7 },
    },
  },
  {
    name: 'an equality prefix then the sort field: {t, _id} answers a tenant page without a SORT',
    seed: docs,
    indexes: tenantIdIndex,
    run: async (c) => {
      const q = () => c.find({ t: 'b', del: null }).sort({ _id: 1 }).limit(4);
      return { ids: ids(await q().toArray()), explain: await explained(q()) };
    },
    expected: {
      ids: expectedIds(live('b'), byId, 0, 4),
      explain: {
        stages: ['LIMIT', 'FETCH', 'IXSCAN'],
        scan: { indexName: 't_1__id_1', direction: 'forward', indexBounds: { t: ['["b", "b"]'], _id: ['[MinKey, MaxKey]'] } },
        nReturned: 4,
        keys: examinedUntil(live('b'), byId, 4, (d) => d.t === 'b'),
        docs: examinedUntil(live('b'), byId, 4, (d) => d.t === 'b'),
      },
    },
  },
  {
    name: 'the next page bounds {t, _id} on both fields: equality prefix then the range after the cursor',
    seed: docs,
    indexes: tenantIdIndex,
    run: async (c) => {
      const q = () => c.find({ $and: [{ t: 'b', del: null }, { _id: { $gt: 29 } }] }).sort({ _id: 1 }).limit(4);
      return { ids: ids(await q().toArray()), explain: await explained(q()) };
    },
    expected: {
      ids: expectedIds((d) => live('b')(d) && d._id > 29, byId, 0, 4),
      explain: {
        stages: ['LIMIT', 'FETCH', 'IXSCAN'],
        scan: { indexName: 't_1__id_1', direction: 'forward', indexBounds: { t: ['["b", "b"]'], _id: ['(29, inf.0]'] } },
        nReturned: 4,
        keys: examinedUntil(live('b'), byId, 4, (d) => d.t === 'b' && d._id > 29),
        docs: examinedUntil(live('b'), byId, 4, (d) => d.t === 'b' && d._id > 29),
      },
    },
  },
  {
    name: 'a newest-first page walks {t, _id} backwards from the cursor',
    seed: docs,
    indexes: tenantIdIndex,
    run: async (c) => {
      const q = () => c.find({ $and: [{ t: 'a' }, { _id: { $lt: 40 } }] }).sort({ _id: -1 }).limit(3);
      return { ids: ids(await q().toArray()), explain: (await explained(q())).scan };
    },
    expected: {
      ids: expectedIds((d) => d.t === 'a' && d._id < 40, by(['_id', -1]), 0, 3),
      explain: { indexName: 't_1__id_1', direction: 'backward', indexBounds: { t: ['["a", "a"]'], _id: ['(40, -inf.0]'] } },
    },
  },
  {
    name: 'a compound index with a descending field gives its order forwards and reversed',
    seed: docs,
    indexes: compound,
    run: async (c) => ({
      forward: ids(await c.find({ t: 'c' }).sort({ n: -1, _id: 1 }).toArray()),
      reversed: ids(await c.find({ t: 'c' }).sort({ n: 1, _id: -1 }).skip(2).limit(5).toArray()),
      forwardPlan: (await explained(c.find({ t: 'c' }).sort({ n: -1, _id: 1 }))).stages,
      reversedScan: (await explained(c.find({ t: 'c' }).sort({ n: 1, _id: -1 }).skip(2).limit(5))).scan,
    }),
    expected: {
      forward: expectedIds((d) => d.t === 'c', by(['n', -1], ['_id', 1])),
      reversed: expectedIds((d) => d.t === 'c', by(['n', 1], ['_id', -1]), 2, 5),
      forwardPlan: ['FETCH', 'IXSCAN'],
      reversedScan: { indexName: 't_1_n_-1__id_1', direction: 'backward', indexBounds: { t: ['["c", "c"]'], n: ['[MinKey, MaxKey]'], _id: ['[MaxKey, MinKey]'] } },
    },
  },
  {
    name: 'the whole compound key as the sort needs no equality prefix',
    seed: docs,
    indexes: compound,
    run: async (c) => ({
      ids: ids(await c.find().sort({ t: 1, n: -1, _id: 1 }).skip(2).limit(7).toArray()),
      stages: (await explained(c.find().sort({ t: 1, n: -1, _id: 1 }).skip(2).limit(7))).stages,
    }),
    expected: {
      ids: expectedIds(() => true, by(['t', 1], ['n', -1], ['_id', 1]), 2, 7),
      stages: ['LIMIT', 'SKIP', 'FETCH', 'IXSCAN'],
    },
  },
  {
    name: 'mixed directions the index does not have fall back to a blocking sort, with the same results',
    seed: docs,
    indexes: compound,
    run: async (c) => ({
      ids: ids(await c.find({ t: 'a' }).sort({ n: 1, _id: 1 }).limit(6).toArray()),
      stages: (await explained(c.find({ t: 'a' }).sort({ n: 1, _id: 1 }).limit(6))).stages,
    }),
    expected: { ids: expectedIds((d) => d.t === 'a', by(['n', 1], ['_id', 1]), 0, 6), stages: ['SORT', 'FETCH', 'IXSCAN'] },
  },
  {
    name: 'a range on the sort field bounds the scan that gives the order',
    seed: docs,
    indexes: [{ key: { u: 1 } }],
    run: async (c) => {
      const q = () => c.find({ u: { $gte: 20, $lt: 50 } }).sort({ u: -1 }).limit(5);
      const e = await explained(q());
      return { ids: ids(await q().toArray()), stages: e.stages, scan: e.scan, keys: e.keys };
    },
    expected: {
      ids: expectedIds((d) => d.u >= 20 && d.u < 50, by(['u', -1]), 0, 5),
      stages: ['LIMIT', 'FETCH', 'IXSCAN'],
      scan: { indexName: 'u_1', direction: 'backward', indexBounds: { u: ['(50, 20]'] } },
      keys: 5,
    },
  },
  {
    name: 'batchSize and getMore keep walking the index in order',
    seed: docs,
    indexes: tenantIdIndex,
    run: async (c) => {
      const all = ids(await c.find({ t: 'a', del: null }, { batchSize: 3 }).sort({ _id: -1 }).toArray());
      const limited = ids(await c.find({ t: 'a' }, { batchSize: 2 }).sort({ _id: 1 }).skip(1).limit(7).toArray());
      return { all, limited };
    },
    expected: {
      all: expectedIds(live('a'), by(['_id', -1])),
      limited: expectedIds((d) => d.t === 'a', byId, 1, 7),
    },
  },
  {
    name: 'a cursor reads lazily: a document deleted ahead of it after the first batch is not returned',
    seed: docs,
    indexes: tenantIdIndex,
    run: async (c) => {
      const cursor = c.find({ t: 'b' }, { batchSize: 2 }).sort({ _id: -1 });
      const first = [await cursor.next(), await cursor.next()].map((d) => d!._id);
      await c.deleteOne({ _id: tenantB[3] });
      const rest = ids(await cursor.toArray());
      return { first, rest };
    },
    // The fourth document is deleted before a getMore reaches it (the engine's cursor looks one document ahead).
    expected: { first: tenantB.slice(0, 2), rest: [tenantB[2], ...tenantB.slice(4)] },
  },
  {
    name: 'with collation the index gives string order only when collations agree',
    seed: ['apple', 'Banana', 'cherry', 'Date', 'elder', 'Fig'].map((s, i) => ({ _id: i + 1, s })),
    indexes: [{ key: { s: 1 }, options: { collation: { locale: 'en', strength: 2 } } }],
    run: async (c) => {
      const collated = () => c.find({}, { collation: { locale: 'en', strength: 2 } }).sort({ s: 1 }).limit(4);
      const simple = () => c.find().sort({ s: 1 }).limit(4);
      return {
        collated: (await collated().toArray()).map((d) => d.s),
        collatedStages: (await explained(collated())).stages,
        simple: (await simple().toArray()).map((d) => d.s),
        simpleStages: (await explained(simple())).stages,
      };
    },
    expected: {
      collated: ['apple', 'Banana', 'cherry', 'Date'],
      collatedStages: ['LIMIT', 'FETCH', 'IXSCAN'],
      simple: ['Banana', 'Date', 'Fig', 'apple'],
      simpleStages: ['SORT', 'COLLSCAN'],
    },
  },
  {
    name: 'a hinted index gives the sort when it can; otherwise the hint wins and a SORT follows',
    seed: docs,
    indexes: [...tenantIdIndex, { key: { n: 1 } }],
    run: async (c) => ({
      giving: ids(await c.find({ t: 'c' }).hint({ t: 1, _id: 1 }).sort({ _id: -1 }).limit(3).toArray()),
      givingStages: (await explained(c.find({ t: 'c' }).hint({ t: 1, _id: 1 }).sort({ _id: -1 }).limit(3))).stages,
      other: ids(await c.find({ t: 'c' }).hint('n_1').sort({ _id: -1 }).limit(3).toArray()),
      otherPlan: await explained(c.find({ t: 'c' }).hint('n_1').sort({ _id: -1 }).limit(3)).then((e) => [e.stages, e.scan.indexName]),
    }),
    expected: {
      giving: expectedIds((d) => d.t === 'c', by(['_id', -1]), 0, 3),
      givingStages: ['LIMIT', 'FETCH', 'IXSCAN'],
      other: expectedIds((d) => d.t === 'c', by(['_id', -1]), 0, 3),
      otherPlan: [['SORT', 'FETCH', 'IXSCAN'], 'n_1'],
    },
  },
  {
    name: 'a $natural hint scans the collection and still sorts; a $natural sort is record order even with an index',
    seed: docs,
    indexes: tenantIdIndex,
    run: async (c) => ({
      hinted: ids(await c.find({ t: 'a' }).hint({ $natural: 1 }).sort({ _id: -1 }).limit(3).toArray()),
      hintedStages: (await explained(c.find({ t: 'a' }).hint({ $natural: 1 }).sort({ _id: -1 }).limit(3))).stages,
      backwards: ids(await c.find({ t: 'a' }).hint({ $natural: -1 }).sort({ _id: 1 }).limit(3).toArray()),
      natural: ids(await c.find({ t: 'a' }).sort({ $natural: 1 }).limit(3).toArray()),
    }),
    expected: {
      hinted: expectedIds((d) => d.t === 'a', by(['_id', -1]), 0, 3),
      hintedStages: ['SORT', 'COLLSCAN'],
      backwards: expectedIds((d) => d.t === 'a', byId, 0, 3),
      natural: docs.filter((d) => d.t === 'a').slice(0, 3).map((d) => d._id),
    },
  },
  {
    name: 'a multikey index cannot give a sort: arrays sort by their least (asc) or greatest (desc) element',
    indexes: [{ key: { k: 1 } }],
    seed: [
      { _id: 1, k: 3 },
      { _id: 2, k: 2 },
      { _id: 3, k: 4 },
    ],
    run: async (c) => {
      const before = (await explained(c.find().sort({ k: 1 }).limit(2))).stages;
      await c.insertOne({ _id: 4, k: [5, 1] });
      return {
        before,
        asc: ids(await c.find().sort({ k: 1 }).toArray()),
        desc: ids(await c.find().sort({ k: -1 }).limit(3).toArray()),
        after: (await explained(c.find().sort({ k: 1 }).limit(2))).stages,
      };
    },
    expected: { before: ['LIMIT', 'FETCH', 'IXSCAN'], asc: [4, 2, 1, 3], desc: [4, 3, 1], after: ['SORT', 'COLLSCAN'] },
  },
  {
    name: 'a sparse index cannot give a sort (it lacks documents)',
    indexes: [{ key: { v: 1 }, options: { sparse: true } }],
    seed: [{ _id: 1, v: 2 }, { _id: 2 }, { _id: 3, v: 1 }],
    run: async (c) => ({ ids: ids(await c.find().sort({ v: 1 }).toArray()), stages: (await explained(c.find().sort({ v: 1 }))).stages }),
    expected: { ids: [2, 3, 1], stages: ['SORT', 'COLLSCAN'] },
  },
  {
    name: 'a selective bounded index beats an index that only gives the order',
    seed: docs,
    indexes: [{ key: { u: 1 }, options: { unique: true } }],
    run: async (c) => {
      const e = await explained(c.find({ u: 26, t: 'c' }).sort({ _id: 1 }));
      return { ids: ids(await c.find({ u: 26, t: 'c' }).sort({ _id: 1 }).toArray()), stages: e.stages, index: e.scan.indexName };
    },
    expected: { ids: expectedIds((d) => d.u === 26 && d.t === 'c', byId), stages: ['SORT', 'FETCH', 'IXSCAN'], index: 'u_1' },
  },
  {
    name: 'aggregate $match, $sort, $limit and findOneAndUpdate with a sort read the index order',
    seed: docs,
    indexes: tenantIdIndex,
    run: async (c: LooseCollection) => ({
      agg: ids(await c.aggregate([{ $match: { t: 'b', del: null } }, { $sort: { _id: -1 } }, { $limit: 3 }]).toArray()),
      updated: (await c.findOneAndUpdate({ t: 'a' }, { $set: { seen: true } }, { sort: { _id: -1 }, returnDocument: 'after' }))?._id,
      count: await c.countDocuments({ t: 'b' }),
    }),
    expected: {
      agg: expectedIds(live('b'), by(['_id', -1]), 0, 3),
      updated: expectedIds((d) => d.t === 'a', by(['_id', -1]), 0, 1)[0],
      count: docs.filter((d) => d.t === 'b').length,
    },
  },
  {
    name: 'a bad sort direction is still refused (15975) where an index could give the order',
    seed: docs,
    indexes: tenantIdIndex,
    // Through the command: the driver itself refuses that sort before sending it.
    run: (c, db) => db.command({ find: c.collectionName, filter: { t: 'a' }, sort: { _id: 2 } }),
    code: 15975,
  },
];

describeCompat('index sort', cases);
