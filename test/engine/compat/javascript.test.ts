import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * Server-side JavaScript is refused as a mongod with
 * security.javascriptEnabled: false refuses it (so MONGO_COMPAT_URL must
 * name such a server for these to agree).
 */
const seed = [{ _id: 1, a: 1 }];

const cases: CompatCase[] = [
  { name: '$where in find', seed, run: (c) => c.find({ $where: 'this.a == 1' }).toArray(), code: 6108304 },
  { name: '$where in count', seed, run: (c, db) => db.command({ count: c.collectionName, query: { $where: 'true' } }), code: 6108304 },
  // countDocuments is an aggregation: its $match refuses $where before JavaScript is looked for.
  { name: '$where in countDocuments (a $match) is BadValue', seed, run: (c) => c.countDocuments({ $where: 'true' }), code: 2 },
  { name: '$where in deleteMany', seed, run: (c) => c.deleteMany({ $where: 'true' }), code: 6108304 },
  { name: '$where inside $or', seed, run: (c) => c.find({ $or: [{ a: 2 }, { $where: 'true' }] }).toArray(), code: 6108304 },
  { name: '$where in an aggregation $match is BadValue', seed, run: (c) => c.aggregate([{ $match: { $where: 'true' } }]).toArray(), code: 2 },
  {
    name: '$function in an expression',
    seed,
    run: (c) => c.aggregate([{ $project: { x: { $function: { body: 'function() { return 1; }', args: [], lang: 'js' } } } }]).toArray(),
    code: 31264,
  },
  {
    name: '$accumulator in $group',
    seed,
    run: (c) =>
      c
        .aggregate([
          { $group: { _id: null, x: { $accumulator: { init: 'function() { return 0; }', accumulate: 'function(s) { return s; }', accumulateArgs: [], merge: 'function(a) { return a; }', lang: 'js' } } } },
        ])
        .toArray(),
    code: 31264,
  },
  {
    name: 'mapReduce',
    seed,
    run: (c, db) => db.command({ mapReduce: c.collectionName, map: 'function() { emit(this.a, 1); }', reduce: 'function(k, v) { return 1; }', out: { inline: 1 } }),
    code: 31246,
  },
  {
    name: 'nothing was changed by a refused $where delete',
    seed,
    run: async (c) => {
      await c.deleteMany({ $where: 'true' }).catch(() => undefined);
      return c.countDocuments();
    },
    expected: 1,
  },
];

describeCompat('javascript', cases);
