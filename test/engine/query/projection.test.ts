import { describe, expect, it } from 'vitest';
import { compileProjection } from '../../../src/engine/query/index.js';
import type { Document } from '../../../src/engine/query/index.js';

const doc = { _id: 1, b: 2, a: { x: 1, y: 2 }, c: [{ x: 1, y: 1 }, { x: 2, y: 2 }, 5], n: [1, 2, 3, 4, 5] };

describe('compileProjection', () => {
  it.each([
    ['inclusion keeps document field order', { a: 1, b: 1 }, { _id: 1, b: 2, a: { x: 1, y: 2 } }],
    ['_id excluded on request', { _id: 0, b: 1 }, { b: 2 }],
    ['true counts as inclusion', { b: true }, { _id: 1, b: 2 }],
    ['exclusion removes fields', { a: 0, c: 0, n: 0 }, { _id: 1, b: 2 }],
    ['dotted inclusion into subdocument', { 'a.y': 1 }, { _id: 1, a: { y: 2 } }],
    ['nested projection document equals dotted path', { a: { y: 1 } }, { _id: 1, a: { y: 2 } }],
    ['dotted inclusion through array drops scalars', { 'c.x': 1 }, { _id: 1, c: [{ x: 1 }, { x: 2 }] }],
    ['dotted exclusion through array', { 'c.y': 0, a: 0, n: 0 }, { _id: 1, b: 2, c: [{ x: 1 }, { x: 2 }, 5] }],
    ['$slice alone keeps other fields', { n: { $slice: 2 }, a: 0, c: 0 }, { _id: 1, b: 2, n: [1, 2] }],
    ['$slice negative', { n: { $slice: -2 }, b: 1 }, { _id: 1, b: 2, n: [4, 5] }],
    ['$slice [skip, limit]', { n: { $slice: [1, 2] }, b: 1 }, { _id: 1, b: 2, n: [2, 3] }],
    ['$elemMatch includes the first match', { c: { $elemMatch: { x: 2 } } }, { _id: 1, c: [{ x: 2, y: 2 }] }],
    ['_id alone is an inclusion', { _id: 1 }, { _id: 1 }],
    ['$elemMatch value form', { n: { $elemMatch: { $gt: 3 } } }, { _id: 1, n: [4] }],
    ['$elemMatch without match omits the field', { c: { $elemMatch: { x: 9 } } }, { _id: 1 }],
    ['literal and field expressions', { b: 1, k: 'lit', z: '$a.x' }, { _id: 1, b: 2, k: 'lit', z: 1 }],
    ['operator expression', { s: { $add: ['$b', 1] } }, { _id: 1, s: 3 }],
  ] as Array<[string, Document, Document]>)('%s', (_n, projection, expected) => {
    expect(compileProjection(projection)(doc)).toEqual(expected);
  });

  it('inclusion output lists fields in document order', () => {
    expect(Object.keys(compileProjection({ n: 1, b: 1, _id: 1 })(doc))).toEqual(['_id', 'b', 'n']);
  });

  it('positional projection returns the element matched by the filter', () => {
    const project = compileProjection({ 'c.$': 1 }, { 'c.x': 2 });
    expect(project(doc)).toEqual({ _id: 1, c: [{ x: 2, y: 2 }] });
  });

  it('positional projection with a value condition', () => {
    expect(compileProjection({ 'n.$': 1 }, { n: { $gt: 3 } })(doc)).toEqual({ _id: 1, n: [4] });
  });

  it('does not change the source document', () => {
    const copy = structuredClone(doc);
    compileProjection({ 'a.x': 0 })(doc);
    expect(doc).toEqual(copy);
  });

  it.each([
    ['inclusion then exclusion', { a: 1, b: 0 }, 31254],
    ['exclusion then inclusion', { a: 0, b: 1 }, 31253],
    ['path collision', { a: 1, 'a.x': 1 }, 31249],
    ['positional without filter field', { 'c.$': 1 }, 2],
  ] as Array<[string, Document, number]>)('rejects %s', (_n, projection, code) => {
    expect(() => compileProjection(projection, {})).toThrow(expect.objectContaining({ code }));
  });
});
