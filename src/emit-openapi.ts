import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import mongoose from 'mongoose';
import { loadConfig } from './config.js';
import { connectMongoose, startEmbeddedEngine } from './database.js';
import { OPENAPI_ENDPOINT, REST_BASE_PATH } from './http/index.js';
import { openApiFilePath } from './openapi-file.js';
import { buildServiceSchema, createService, createServices } from './service.js';

/**
 * `npm run openapi`: writes schema/openapi.json, the OpenAPI document exactly
 * as the service serves it. The service is built as at start-up (on an
 * in-memory engine, listening on a free loopback port), asked for
 * /api/v1/openapi.json once, and stopped.
 */
const { config } = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', JWT_SECRET: randomBytes(32).toString('hex') });
const engine = await startEmbeddedEngine({ inMemory: true, port: 0 });
try {
  await connectMongoose(engine.uri, 'emit_openapi');
  const services = createServices();
  const service = await createService(config, await buildServiceSchema(services), { services });
  const server = service.app.listen(0, '127.0.0.1');
  try {
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}${REST_BASE_PATH}${OPENAPI_ENDPOINT}`);
    if (!response.ok) throw new Error(`GET ${REST_BASE_PATH}${OPENAPI_ENDPOINT} answered ${response.status}`);
    // The served bytes, as they are (src/http/openapi.ts renders them as the file is kept).
    const served = await response.text();
    await mkdir(dirname(openApiFilePath), { recursive: true });
    await writeFile(openApiFilePath, served);
    console.log(`wrote ${openApiFilePath}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await service.stop();
  }
} finally {
  await mongoose.disconnect();
  await engine.close();
}
