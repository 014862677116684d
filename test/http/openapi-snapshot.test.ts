import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiFilePath } from '../../src/openapi-file.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * schema/openapi.json is the served OpenAPI document, committed (as
 * schema/schema.graphql is for GraphQL): a change to an operation, a REST
 * route or the OpenAPI options shows in review, and this test fails until
 * `npm run openapi` has written the new document.
 */

let app: TestApp;
let served: string;
beforeAll(async () => {
  app = await startTestApp();
  const response = await fetch(`${app.baseUrl}/api/v1/openapi.json`);
  expect(response.status).toBe(200);
  // The bytes as served: the committed file is exactly these (not a re-rendering of the parsed document).
  served = await response.text();
});
afterAll(() => app?.close());

/** Where the two texts first differ, with a little context, for the failure message. */
function firstDifference(committed: string, current: string): string {
  const a = committed.split('\n');
  const b = current.split('\n');
  const line = a.findIndex((text, index) => text !== b[index]);
  const at = line === -1 ? a.length : line;
  const excerpt = (lines: string[]) => lines.slice(Math.max(0, at - 2), at + 3).join('\n');
  return `first difference at line ${at + 1}\n--- ${openApiFilePath}\n${excerpt(a)}\n--- served\n${excerpt(b)}`;
}

describe('the committed OpenAPI document', () => {
  it('matches the served /api/v1/openapi.json (run `npm run openapi` after changing operations or routes)', async () => {
    const committed = await readFile(openApiFilePath, 'utf8').catch(() => '');
    const stale = committed !== served;
    expect(
      stale,
      stale ? `${openApiFilePath} is stale: run \`npm run openapi\` and commit the result (${firstDifference(committed, served)})` : '',
    ).toBe(false);
  });

  it('never exposes a password hash or a key hash', async () => {
    const committed = await readFile(openApiFilePath, 'utf8');
    expect(committed).not.toMatch(/passwordHash|"hash"/i);
  });
});
