import 'reflect-metadata';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { renderSchemaFile, schemaFilePath } from './graphql/index.js';
import { buildServiceSchema } from './service.js';

/** `npm run schema`: writes schema/schema.graphql from the resolver classes. */
const schema = await buildServiceSchema();
await mkdir(dirname(schemaFilePath), { recursive: true });
await writeFile(schemaFilePath, renderSchemaFile(schema));
console.log(`wrote ${schemaFilePath}`);
