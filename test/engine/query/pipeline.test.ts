import { Long } from 'bson';
import { describe, expect, it } from 'vitest';
import { runPipeline, splitOutputStage } from '../../../src/engine/query/index.js';
import type { Document } from '../../../src/engine/query/index.js';

const docs: Document[] = [
  { _id: 1, cat: 'a', n: 1, tags: ['x', 'y'] },
  { _id: 2, cat: 'b', n: Long.fromNumber(5), tags: [] },
  { _id: 3, cat: 'a', n: 3 },
];
const others: Document[] = [
  { _id: 10, cat: 'a', label: 'A' },
  { _id: 11, cat: 'b', label: 'B' },
];
const ctx = { lookup: (c: string) => (c === 'others' ? others : []) };
const run = (pipeline: Document[]) => runPipeline(docs, pipeline, ctx);

describe('runPipeline stages', () => {
  it.each([
    ['$match', [{ $match: { n: { $gt: 2 } } }], [2, 3]],
    ['$sort descending across numeric types', [{ $sort: { n: -1 } }], [2, 3, 1]],
    ['$skip and $limit', [{ $sort: { _id: 1 } }, { $skip: 1 }, { $limit: 1 }], [2]],
  ] as Array<[string, Document[], number[]]>)('%s', (_n, pipeline, ids) => {
    expect(run(pipeline).map((d) => d._id)).toEqual(ids);
  });

  it('$project with expressions', () => {
    expect(run([{ $match: { _id: 1 } }, { $project: { _id: 0, cat: 1, twice: { $multiply: ['$n', 2] } } }])).toEqual([{ cat: 'a', twice: 2 }]);
  });
  it('$addFields merges into sub-documents', () => {
    expect(runPipeline([{ _id: 1, s: { a: 1 } }], [{ $addFields: { 's.b': 2, c: '$s.a' } }], ctx)).toEqual([{ _id: 1, s: { a: 1, b: 2 }, c: 1 }]);
  });
  it('$unset removes fields', () => {
    expect(run([{ $match: { _id: 3 } }, { $unset: ['n', 'cat'] }])).toEqual([{ _id: 3 }]);
  });
  it('$unwind with index and preserve', () => {
    expect(run([{ $unwind: { path: '$tags', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true } }, { $project: { tags: 1, i: 1 } }])).toEqual([
      { _id: 1, tags: 'x', i: 0 },
      { _id: 1, tags: 'y', i: 1 },
      { _id: 2, i: null },
      { _id: 3, i: null },
    ]);
  });
  it('$unwind drops missing and empty arrays by default', () => {
    expect(run([{ $unwind: '$tags' }]).map((d) => d.tags)).toEqual(['x', 'y']);
  });
  it('$group with accumulators', () => {
    const out = run([{ $group: { _id: '$cat', total: { $sum: '$n' }, count: { $sum: 1 }, max: { $max: '$n' }, ids: { $push: '$_id' }, avg: { $avg: '$n' } } }, { $sort: { _id: 1 } }]);
    expect(out).toEqual([
      { _id: 'a', total: 4, count: 2, max: 3, ids: [1, 3], avg: expect.anything() },
      { _id: 'b', total: Long.fromNumber(5), count: 1, max: Long.fromNumber(5), ids: [2], avg: expect.anything() },
    ]);
  });
  it('countDocuments shape: $match then $group {_id: 1, n: {$sum: 1}}', () => {
    expect(run([{ $match: {} }, { $group: { _id: 1, n: { $sum: 1 } } }])).toEqual([{ _id: 1, n: 3 }]);
  });
  it('$count', () => {
    expect(run([{ $count: 'total' }])).toEqual([{ total: 3 }]);
  });
  it('$lookup with localField/foreignField', () => {
    const out = run([{ $match: { _id: 2 } }, { $lookup: { from: 'others', localField: 'cat', foreignField: 'cat', as: 'o' } }]);
    expect(out[0]!.o).toEqual([{ _id: 11, cat: 'b', label: 'B' }]);
  });
  it('$lookup with pipeline and let', () => {
    const out = run([
      { $match: { _id: 1 } },
      { $lookup: { from: 'others', let: { c: '$cat' }, pipeline: [{ $match: { $expr: { $eq: ['$cat', '$$c'] } } }, { $project: { _id: 0, label: 1 } }], as: 'o' } },
    ]);
    expect(out[0]!.o).toEqual([{ label: 'A' }]);
  });
  it('$facet', () => {
    expect(run([{ $facet: { c: [{ $count: 'n' }], first: [{ $limit: 1 }, { $project: { _id: 1 } }] } }])).toEqual([{ c: [{ n: 3 }], first: [{ _id: 1 }] }]);
  });
  it('$replaceRoot', () => {
    expect(runPipeline([{ _id: 1, in: { a: 1 } }], [{ $replaceRoot: { newRoot: '$in' } }], ctx)).toEqual([{ a: 1 }]);
  });
  it('$sortByCount', () => {
    expect(run([{ $sortByCount: '$cat' }])).toEqual([{ _id: 'a', count: 2 }, { _id: 'b', count: 1 }]);
  });
  it('does not change the input documents', () => {
    run([{ $set: { n: 0 } }]);
    expect(docs[0]!.n).toBe(1);
  });
});

describe('runPipeline errors', () => {
  it.each([
    ['unknown stage', [{ $foo: {} }], 40324],
    ['stage with two fields', [{ $match: {}, $sort: { a: 1 } }], 40323],
    ['$out not split off', [{ $out: 'x' }], 40601],
    ['negative $skip', [{ $skip: -1 }], 2],
    ['group without _id', [{ $group: { n: { $sum: 1 } } }], 15955],
    ['unknown accumulator', [{ $group: { _id: null, n: { $foo: 1 } } }], 15952],
  ] as Array<[string, Document[], number]>)('%s', (_n, pipeline, code) => {
    expect(() => run(pipeline)).toThrow(expect.objectContaining({ code }));
  });
});

describe('splitOutputStage', () => {
  it('splits a trailing $out', () => {
    expect(splitOutputStage([{ $match: {} }, { $out: 'x' }])).toEqual({ stages: [{ $match: {} }], output: { $out: 'x' } });
  });
  it('rejects $merge before the end', () => {
    expect(() => splitOutputStage([{ $merge: 'x' }, { $match: {} }])).toThrow(expect.objectContaining({ code: 40601 }));
  });
});

describe('expressions keep mongod numeric types', () => {
  it('$add of a long and an int is a long', () => {
    expect(runPipeline([{ _id: 1, n: Long.fromNumber(5) }], [{ $project: { s: { $add: ['$n', 1] } } }], ctx)).toEqual([{ _id: 1, s: Long.fromNumber(6) }]);
  });
  it('unknown expression operator is 168', () => {
    expect(() => run([{ $project: { x: { $foo: 1 } } }])).toThrow(expect.objectContaining({ code: 168 }));
  });
});

describe('more stages and accumulators', () => {
  it('$unionWith appends another collection', () => {
    expect(run([{ $project: { _id: 1 } }, { $unionWith: { coll: 'others', pipeline: [{ $project: { _id: 1 } }] } }]).map((d) => d._id)).toEqual([1, 2, 3, 10, 11]);
  });
  it('$mergeObjects accumulator', () => {
    const out = runPipeline([{ k: 1, o: { a: 1 } }, { k: 1, o: { b: 2 } }], [{ $group: { _id: '$k', m: { $mergeObjects: '$o' } } }], ctx);
    expect(out).toEqual([{ _id: 1, m: { a: 1, b: 2 } }]);
  });
});
