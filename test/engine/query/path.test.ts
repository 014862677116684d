import { describe, expect, it } from 'vitest';
import { getIndexKeyValues, getMatchCandidates, getPath, getPathValues } from '../../../src/engine/query/index.js';

describe('getPath reads one value without expanding arrays', () => {
  it.each([
    ['nested field', { a: { b: { c: 1 } } }, 'a.b.c', 1],
    ['numeric component indexes an array', { a: [{ b: 1 }, { b: 2 }] }, 'a.1.b', 2],
    ['missing', { a: 1 }, 'a.b', undefined],
    ['field of an array is missing', { a: [{ b: 1 }] }, 'a.b', undefined],
  ])('%s', (_n, doc, path, expected) => {
    expect(getPath(doc, path)).toEqual(expected);
  });
});

describe('getPathValues traverses arrays on the way', () => {
  it.each([
    ['through an array of documents', { a: [{ b: 1 }, { b: 2 }] }, 'a.b', [1, 2]],
    ['array leaf is kept whole', { a: { b: [1, 2] } }, 'a.b', [[1, 2]]],
    ['missing element field', { a: [{ b: 1 }, { c: 2 }] }, 'a.b', [1, undefined]],
    ['missing path', {}, 'x.y', [undefined]],
    ['nested arrays', { a: [{ b: [{ c: 1 }, { c: 2 }] }] }, 'a.b.c', [1, 2]],
  ])('%s', (_n, doc, path, expected) => {
    expect(getPathValues(doc, path)).toEqual(expected);
  });

  it('getMatchCandidates adds the elements of array leaves', () => {
    expect(getMatchCandidates({ a: [1, 2] }, 'a')).toEqual([[1, 2], 1, 2]);
  });
  it('getIndexKeyValues expands array leaves and maps missing to null', () => {
    expect(getIndexKeyValues({ a: [{ b: [1, 2] }, {}] }, 'a.b')).toEqual([1, 2, null]);
  });
});
