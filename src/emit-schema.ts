import 'reflect-metadata';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { buildAppSchema, renderSchemaFile, schemaFilePath } from './build-schema.js';

/** `npm run schema`: writes schema/schema.graphql from the resolver classes. */
const schema = await buildAppSchema();
await mkdir(dirname(schemaFilePath), { recursive: true });
await writeFile(schemaFilePath, renderSchemaFile(schema));
console.log(`wrote ${schemaFilePath}`);
