import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { GraphQLSchema } from 'graphql';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Db } from 'mongodb';
import mongoose from 'mongoose';
import { pino, type Logger } from 'pino';
import { hashPassword, signAccessToken, type ActorResolver } from '../../src/auth/index.js';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { connectMongoose, startEmbeddedEngine } from '../../src/database.js';
import { REST_BASE_PATH } from '../../src/http/app.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { buildServiceSchema, createService } from '../../src/service.js';
import { UserModel } from '../../src/users/index.js';
import type { WebhookDeliveryOptions } from '../../src/webhooks/index.js';

/**
 * A whole service for one test file: its own in-memory engine, its own
 * database, the real app on an ephemeral port. Call once in `beforeAll`,
 * `close()` in `afterAll`. One per test file: mongoose's default connection
 * is process-wide (vitest runs each file in its own process).
 */
export interface TestResponse<TBody = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text. */
  body: TBody;
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** A JSON value, serialized. */
  body?: unknown;
  /** A raw body sent as is (e.g. malformed JSON); wins over `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  tenantId: string | null;
  roles: string[];
  /** A valid access token of this user. */
  token: string;
}

export interface CreateUserOptions {
  tenantId: string | null;
  /** Default `['admin']`. */
  roles?: string[];
  email?: string;
  password?: string;
  firstName?: string;
}

export interface TestApp {
  /** e.g. http://127.0.0.1:54321 */
  baseUrl: string;
  config: AppConfig;
  /** A REST call; `path` is relative to /api/v1 unless it starts with `/api/`. */
  rest(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Any HTTP call on an absolute path (`/healthz`, `/graphql`, ...). */
  http(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  graphql(
    query: string,
    variables?: Record<string, unknown>,
    opts?: Omit<RequestOptions, 'body' | 'rawBody'>,
  ): Promise<TestResponse>;
  /** The native driver's Db of the app's database: plant and inspect raw records. */
  db: Db;
  createUser(opts: CreateUserOptions): Promise<TestUser>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Extra environment for loadConfig (e.g. `{ BODY_LIMIT: '1kb' }`). */
  env?: Record<string, string>;
  /** The app's logger (default: silent). */
  logger?: Logger;
  /** Replaces the credential strategies (e.g. one that refuses with 429). */
  resolveActor?: ActorResolver;
  /** Webhook delivery settings (a fast retry schedule, a short timeout, a clock). */
  webhooks?: WebhookDeliveryOptions;
  /** Subscription stream settings (a short re-check interval). */
  eventSubscriptions?: { recheckMs?: number };
  /** Deliver webhooks from a thread started from this built entry (webhook-delivery-thread.js of a test build). */
  deliveryThread?: { entry: URL };
  /** Where spans go when `env` turns tracing on (OTEL_EXPORTER_OTLP_ENDPOINT): e.g. an in-memory exporter's processor. */
  traceProcessor?: SpanProcessor;
}

export const DEFAULT_TEST_PASSWORD = 'Passw0rd!';

let schemaOnce: Promise<GraphQLSchema> | undefined;

/** The schema startTestApp serves, built once per test file (tests read argument types from it). */
export function servedSchema(): Promise<GraphQLSchema> {
  schemaOnce ??= buildServiceSchema();
  return schemaOnce;
}
let userCounter = 0;

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const engine = await startEmbeddedEngine({ inMemory: true, port: 0 });
  const dbName = `test_${randomBytes(4).toString('hex')}`;
  await connectMongoose(engine.uri, dbName, { traced: Boolean(config.tracing.endpoint) });
  const logger = options.logger ?? pino({ level: config.logLevel });
  const deliveryThread = options.deliveryThread && { uri: engine.uri, dbName, entry: options.deliveryThread.entry };
  const handle = await createService(config, await servedSchema(), {
    logger,
    resolveActor: options.resolveActor,
    webhooks: options.webhooks,
    eventSubscriptions: options.eventSubscriptions,
    deliveryThread,
    engine,
    traceProcessor: options.traceProcessor,
  });
  // The server `npm start` uses (it answers what the HTTP parser refuses, too).
  const server = createHttpServer(handle.app, logger, config.http, handle.upgrade).listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve).once('error', reject);
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function http(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    const isJson = /json/.test(response.headers.get('content-type') ?? '');
    return { status: response.status, headers: response.headers, body: isJson && text ? JSON.parse(text) : text };
  }

  return {
    baseUrl,
    config,
    db: mongoose.connection.db!,
    http,
    rest: (method, path, opts) => http(method, path.startsWith('/api/') ? path : `${REST_BASE_PATH}${path}`, opts),
    graphql: (query, variables, opts = {}) => http('POST', '/graphql', { ...opts, body: { query, variables } }),
    async createUser(opts) {
      userCounter += 1;
      const email = opts.email ?? `user${userCounter}.${randomBytes(3).toString('hex')}@example.test`;
      const password = opts.password ?? DEFAULT_TEST_PASSWORD;
      const roles = opts.roles ?? ['admin'];
      const user = await UserModel.create({
        email,
        passwordHash: await hashPassword(password),
        firstName: opts.firstName ?? 'Test',
        roles,
        tenant_id: opts.tenantId,
      });
      const id = String(user._id);
      const { accessToken } = signAccessToken(config.jwt, { sub: id, tenant: opts.tenantId, roles, ver: user.tokenVersion ?? 0 });
      return { id, email, password, tenantId: opts.tenantId, roles, token: accessToken };
    },
    async close() {
      // Open subscriptions (SSE responses, WebSockets, which closeAllConnections does not reach) end first.
      handle.endStreams?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handle.stop();
      await mongoose.disconnect();
      await engine.close();
    },
  };
}
