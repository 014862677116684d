/**
 * The HTTP edge, generic (no area): the express application with its
 * front doors (/graphql, /api/v1, docs, health), and the Node server under it.
 * The composition root gives it the schema, the REST table and the context.
 */
export { createApp, GRAPHQL_PATH, REST_BASE_PATH, type AppHandle } from './app.js';
export { createHttpServer } from './http-server.js';
export { buildRestJsonSchemas, OPENAPI_ENDPOINT, renderOpenApiDocument } from './openapi.js';
export { databaseConnected } from './use-database-gate.js';
export type { RestRoutes } from './rest-routes.js';
export type { CallerAdmission, EdgeScope } from './use-request-edge.js';
export { IdempotencyRecords } from './idempotency-records.js';
export type { SubscriptionHeaderReader, SubscriptionRequestFacts } from './graphql-subscriptions.js';
