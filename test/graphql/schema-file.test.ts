import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { renderSchemaFile, schemaFilePath } from '../../src/graphql/build-schema.js';
import { buildServiceSchema } from '../../src/service.js';

describe('the committed GraphQL schema', () => {
  it('matches the resolver classes (run `npm run schema` after changing them)', async () => {
    const committed = await readFile(schemaFilePath, 'utf8');
    expect(committed === renderSchemaFile(await buildServiceSchema())).toBe(true);
  });

  it('never exposes a password hash', async () => {
    expect(await readFile(schemaFilePath, 'utf8')).not.toMatch(/passwordHash/i);
  });
});
