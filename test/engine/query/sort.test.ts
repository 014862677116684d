import { Double, Long } from 'bson';
import { describe, expect, it } from 'vitest';
import { compileSort, naturalDirection, setTextScore } from '../../../src/engine/query/index.js';
import type { Document } from '../../../src/engine/query/index.js';

const order = (sort: Document, docs: Document[]) => [...docs].sort(compileSort(sort)).map((d) => d.id);

describe('compileSort orders like mongod', () => {
  it.each([
    ['numbers across types ascending', { a: 1 }, [{ id: 1, a: 3 }, { id: 2, a: new Double(1.5) }, { id: 3, a: Long.fromNumber(2) }], [2, 3, 1]],
    ['descending', { a: -1 }, [{ id: 1, a: 1 }, { id: 2, a: 3 }, { id: 3, a: 2 }], [2, 3, 1]],
    ['missing sorts with null, before numbers', { a: 1 }, [{ id: 1, a: 1 }, { id: 2 }, { id: 3, a: null }], [2, 3, 1]],
    ['numbers before strings', { a: 1 }, [{ id: 1, a: 'a' }, { id: 2, a: 10 }], [2, 1]],
    ['array sorts by min element ascending', { a: 1 }, [{ id: 1, a: [5, 0] }, { id: 2, a: 1 }], [1, 2]],
    ['array sorts by max element descending', { a: -1 }, [{ id: 1, a: [5, 0] }, { id: 2, a: 4 }], [1, 2]],
    ['empty array below null', { a: 1 }, [{ id: 1, a: null }, { id: 2, a: [] }], [2, 1]],
    ['second key breaks ties', { a: 1, b: -1 }, [{ id: 1, a: 1, b: 1 }, { id: 2, a: 1, b: 2 }], [2, 1]],
    ['dotted path', { 'a.b': 1 }, [{ id: 1, a: { b: 2 } }, { id: 2, a: { b: 1 } }], [2, 1]],
    ['stable for ties', { a: 1 }, [{ id: 1, a: 1 }, { id: 2, a: 1 }], [1, 2]],
  ] as Array<[string, Document, Document[], number[]]>)('%s', (_n, sort, docs, expected) => {
    expect(order(sort, docs)).toEqual(expected);
  });

  it('sorts strings case-insensitively with a collation', () => {
    const docs = [{ id: 1, a: 'b' }, { id: 2, a: 'A' }, { id: 3, a: 'a' }];
    expect([...docs].sort(compileSort({ a: 1 }, { locale: 'en', strength: 2 })).map((d) => d.id)).toEqual([2, 3, 1]);
  });
});

describe('compileSort validation', () => {
  it.each([
    ['non-numeric value', { a: 'asc' }, 15974],
    ['number other than 1/-1', { a: 2 }, 15975],
    ['$meta other than textScore', { a: { $meta: 'searchHighlights' } }, 2],
    ['other object', { a: { x: 1 } }, 17312],
  ] as Array<[string, Document, number]>)('%s', (_n, sort, code) => {
    expect(() => compileSort(sort)).toThrow(expect.objectContaining({ code }));
  });
});

describe('$meta textScore', () => {
  it('sorts by the text score, highest first, and refuses documents without one (40218)', () => {
    const [a, b] = [{ id: 1 }, { id: 2 }];
    setTextScore(a, 0.75);
    setTextScore(b, 1.1);
    expect([a, b].sort(compileSort({ s: { $meta: 'textScore' } })).map((d) => d.id)).toEqual([2, 1]);
    expect(() => [{ id: 1 }, { id: 2 }].sort(compileSort({ s: { $meta: 'textScore' } }))).toThrow(expect.objectContaining({ code: 40218 }));
  });
});

describe('$natural', () => {
  it('is accepted and leaves storage order', () => {
    expect(order({ $natural: -1 }, [{ id: 1 }, { id: 2 }])).toEqual([1, 2]);
  });
  it('naturalDirection reports the requested direction', () => {
    expect([naturalDirection({ $natural: -1 }), naturalDirection({ a: 1 })]).toEqual([-1, undefined]);
  });
});
