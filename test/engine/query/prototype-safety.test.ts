import { describe, expect, it } from 'vitest';
import { applyUpdate, compileFilter, fromBson, runPipeline } from '../../../src/engine/query/index.js';

// A field named __proto__ is legal BSON. It must stay a plain field: never the
// document's prototype, and never a way to write into Object.prototype.
describe('fields named __proto__', () => {
  const parsed = () => {
    const raw: Record<string, unknown> = {};
    Object.defineProperty(raw, '__proto__', { value: { x: 1 }, enumerable: true, configurable: true, writable: true });
    return raw;
  };

  it('survive fromBson as an own field', () => {
    const doc = fromBson(parsed()) as Record<string, unknown>;
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.keys(doc)).toEqual(['__proto__']);
  });

  it('cannot pollute Object.prototype through $set', () => {
    const { doc } = applyUpdate({ _id: 1 }, { $set: { '__proto__.polluted': 1 } }, { isInsert: false });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(doc, '__proto__')?.value).toEqual({ polluted: 1 });
  });

  it('cannot pollute Object.prototype through $addFields', () => {
    runPipeline([{ _id: 1 }], [{ $addFields: { '__proto__.polluted2': 1 } }], { lookup: () => [] });
    expect(({} as Record<string, unknown>).polluted2).toBeUndefined();
  });

  it('are not read from the prototype by filters', () => {
    expect(compileFilter({ 'constructor.name': 'Object' })({ _id: 1 })).toBe(false);
  });
});
