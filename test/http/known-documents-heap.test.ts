import v8 from 'node:v8';
import vm from 'node:vm';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { knownDocumentBytes } from '../../src/http/apollo-known-documents.js';

/**
 * The known-document cache (apollo-known-documents.ts) keeps at most 32 MiB
 * of parsed documents by its own count of each document's heap
 * (`knownDocumentBytes`): that count must not fall short of what the heap
 * really holds for a document, whatever its shape. Measured here on the
 * heap itself (GC before and after parsing 300 documents of a shape).
 */

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function heapOf(texts: string[]): { measured: number; counted: number } {
  gc();
  gc();
  const before = v8.getHeapStatistics().used_heap_size;
  // Parsed as Apollo parses a request's document (with `loc`, its token list).
  const documents = texts.map((text) => parse(text));
  gc();
  gc();
  const measured = v8.getHeapStatistics().used_heap_size - before;
  const counted = texts.reduce((sum, text, i) => sum + knownDocumentBytes(text, documents[i]!), 0);
  expect(documents).toHaveLength(texts.length); // kept alive until measured
  return { measured, counted };
}

const shapes: [string, (i: number) => string][] = [
  ['a typical read', (i) => `query Menu${i}($id: ID!) { mealMenu(id: $id) { id name date mealType estimatedPortions tenant_id createdAt updatedAt deletedAt } }`],
  ['one field repeated (the densest valid document)', (i) => `query D${i} { mealMenus { items { ${'id '.repeat(200)} } } }`],
  ['many aliases', (i) => `query A${i} { ${Array.from({ length: 15 }, (_, k) => `a${k}:mealMenus{items{id}}`).join(' ')} }`],
  ['arguments and literals', (i) => `query R${i} { ${Array.from({ length: 10 }, (_, k) => `m${k}: mealMenus(limit: ${k + 1}, date: "2026-01-0${(k % 9) + 1}", mealType: lunch) { items { id name } }`).join(' ')} }`],
  ['a long string literal', (i) => `query S${i} { mealMenus(cursor: "${'x'.repeat(2000)}") { items { id } } }`],
  ['a long non-Latin string literal', (i) => `query U${i} { mealMenus(cursor: "${'é漢'.repeat(700)}") { items { id } } }`],
];

describe('what the known-document cache counts for a document, against the heap', () => {
  it.each(shapes)('covers %s', (_shape, make) => {
    const { measured, counted } = heapOf(Array.from({ length: 300 }, (_, i) => make(i)));
    expect(measured).toBeGreaterThan(0);
    expect(counted).toBeGreaterThanOrEqual(measured);
    // Not so far above that the 32 MiB bound would keep far fewer documents than it could.
    expect(counted).toBeLessThan(6 * measured);
  });
});
