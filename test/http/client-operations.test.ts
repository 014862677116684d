import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { limitedParseOptions, limitRules } from '../../src/graphql/limits.js';

// The documents codegen turns into typed client operations (codegen.ts: ours
// and a team's own, in any subfolder) must stay valid against the committed
// schema, or `npm run codegen` breaks for every client team.
const operationsDir = path.resolve('examples/operations');
const schema = buildSchema(readFileSync(path.resolve('schema/schema.graphql'), 'utf8'));
const files = readdirSync(operationsDir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.graphql'));

describe('client operation documents', () => {
  it('exist', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s validates against schema/schema.graphql', (file) => {
    const document = parse(readFileSync(path.join(operationsDir, file), 'utf8'));
    expect(validate(schema, document).map((error) => error.message)).toEqual([]);
  });

  // The service's limits (src/graphql/limits.ts): tokens while parsing, then depth, aliases, directives.
  it.each(files)('%s stays within the GraphQL limits', (file) => {
    const document = parse(readFileSync(path.join(operationsDir, file), 'utf8'), limitedParseOptions);
    expect(validate(schema, document, [...specifiedRules, ...limitRules]).map((error) => error.message)).toEqual([]);
  });
});
