import { fileURLToPath } from 'node:url';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { knownDocumentBytes } from '../../src/http/apollo-known-documents.js';
import { runNode } from '../support/child-process.js';

/**
 * The known-document cache (apollo-known-documents.ts) keeps at most 32 MiB
 * of parsed documents by its own count of each document's heap
 * (`knownDocumentBytes`): that count must not fall short of what the heap
 * really holds for a document, whatever its shape. Measured on the heap of a
 * process of its own (fixtures/parsed-documents-heap.mjs), 300 documents of
 * a shape at a time, the median of three trials.
 */

const measurer = fileURLToPath(new URL('fixtures/parsed-documents-heap.mjs', import.meta.url));

async function heapOf(texts: string[]): Promise<{ measured: number; counted: number }> {
  const run = await runNode(measurer, [], { env: {}, input: JSON.stringify(texts) });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const trials = (JSON.parse(run.stdout) as number[]).sort((a, b) => a - b);
  const counted = texts.reduce((sum, text) => sum + knownDocumentBytes(text, parse(text)), 0);
  return { measured: trials[1]!, counted };
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
  it.each(shapes)('covers %s', async (_shape, make) => {
    const { measured, counted } = await heapOf(Array.from({ length: 300 }, (_, i) => make(i)));
    expect(measured).toBeGreaterThan(0);
    expect(counted).toBeGreaterThanOrEqual(measured);
    // Not so far above that the 32 MiB bound would keep far fewer documents than it could.
    expect(counted).toBeLessThan(6 * measured);
  });
});
