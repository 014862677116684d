import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';

// The documents codegen turns into typed client operations (codegen.ts) must
// stay valid against the committed schema, or `npm run codegen` breaks for
// every client team.
const operationsDir = path.resolve('test/support/operations');
const schema = buildSchema(readFileSync(path.resolve('schema/schema.graphql'), 'utf8'));
const files = readdirSync(operationsDir).filter((name) => name.endsWith('.graphql'));

describe('client operation documents', () => {
  it('exist', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s validates against schema/schema.graphql', (file) => {
    const document = parse(readFileSync(path.join(operationsDir, file), 'utf8'));
    expect(validate(schema, document).map((error) => error.message)).toEqual([]);
  });
});
