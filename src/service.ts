import type { GraphQLSchema } from 'graphql';
import { ApiKeyExpirySweeper, ApiKeyModel, ApiKeyRecords, ApiKeyResolver, apiKeyReplayedResults, apiKeyRestRoutes, ApiKeyService, createApiKeyStore } from './api-keys/index.js';
import { AuditActorType, declareAuditAction, AuditEventRecords, AuditEventResolver, AuditEventService, AuditOutcome, auditRestRoutes, withAuditTrail } from './audit/index.js';
import {
  apiKeyStrategy,
  authChecker,
  authRestRoutes,
  createActorResolver,
  createApiKeyCheck,
  createUsageRecorder,
  credentialFirst,
  idempotencyScope,
  createRequestContextFactory,
  jwtStrategy,
  limitPasswordWork,
  LoginResolver,
  LoginService,
  RefreshResolver,
  RefreshService,
  SessionModel,
  SessionRecords,
  hasPermission,
  type ActorResolver,
  type ApiKeyUse,
  type UsageRecorder,
  type AppContext,
  type AuthEvents,
  type ChangeEvents,
  type RefreshReuseListener,
} from './auth/index.js';
import { DEFAULT_EVENT_RETENTION_SECONDS, type AppConfig } from './config.js';
import { EventLog, EventOutbox, EventReconciler, EventRecords, EventResolver, eventRestRoutes, EventService, EventTail, OnceEvents, stampEventIds } from './events/index.js';
import { setListReadTimeLimit, startTracing } from './shared/index.js';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { buildAppSchema } from './graphql/index.js';
import { type AppHandle, buildRestJsonSchemas, createApp, databaseConnected, IdempotencyRecords, type RestRoutes } from './http/index.js';
import { createLogger, type Logger } from './logger.js';
import { ServiceMetrics, type DeliveryOutcome, type EngineObservation } from './metrics/index.js';
import { startDeliveryThread, startInlineDelivery, type DeliveryThreadDatabase } from './webhook-delivery.js';
import { MealMenuModel, MealMenuRecords, MealMenuResolver, mealMenuRestRoutes, MealMenuService } from './menus/index.js';
import { errors } from './errors/index.js';
import { EventSubscriptionResolver, EventSubscriptions, EVENTS_READ, type SubscriptionContext } from './events/index.js';
import type { SubscriptionHeaderReader, SubscriptionRequestFacts } from './http/index.js';
import type { Actor } from './auth/index.js';
import { publishSchemaCatalogue, SchemaResolver, schemaRestRoutes } from './schemas/index.js';
import {
  accessControlRestRoutes,
  PasswordTicketModel,
  PasswordTicketRecords,
  RoleModel,
  UserModel,
  PasswordTicketResolver,
  PasswordTicketService,
  PermissionResolver,
  RoleRecords,
  RoleResolver,
  RoleService,
  SessionResolver,
  SessionService,
  UserCredentialRecords,
  UserRecords,
  UserResolver,
  UserService,
  userAccountStore,
  userReplayedResults,
  type UserApiKeys,
} from './users/index.js';
import { WebhookDeliveryModel, WebhookModel, WebhookRecords, webhookReplayedResults, WebhookResolver, webhookRestRoutes, WebhookService, type WebhookDeliveryOptions } from './webhooks/index.js';

/**
 * The composition root: the one file that knows every area. An area adds its
 * resolvers and its REST table here; http/ and graphql/ stay generic, and
 * auth/ reads users through the port the users area implements.
 */
export const restRoutes: RestRoutes = {
  ...authRestRoutes,
  ...accessControlRestRoutes,
  ...mealMenuRestRoutes,
  ...auditRestRoutes,
  ...apiKeyRestRoutes,
  ...schemaRestRoutes,
  ...eventRestRoutes,
  ...webhookRestRoutes,
};

/** The operations that create a record: those whose REST route answers 201 (each area's table says so once). */
export const createOperations: ReadonlySet<string> = new Set(
  Object.entries(restRoutes)
    .filter(([, route]) => route.responseStatus === 201)
    .map(([operation]) => operation),
);

/** Every area's service, each built with its store(s): a test or a second deployment can swap one. */
export interface Services {
  login: LoginService;
  users: UserService;
  roles: RoleService;
  menus: MealMenuService;
  /** The audit trail: the `Audited` middleware writes to it (through the request context), its resolver reads it. */
  auditEvents: AuditEventService;
  apiKeys: ApiKeyService;
  passwordTickets: PasswordTicketService;
  /** Refresh tokens: rotation and reuse detection. */
  refresh: RefreshService;
  /** Sessions as users and administrators see them, and the password changed in person. */
  sessions: SessionService;
  /** The event outbox's writer: the `Audited` middleware, system events and test events write through it. */
  eventLog: EventLog;
  /** The one feed of committed events of this instance (webhook fan-out, subscriptions); stopped by createService's stop(). */
  eventTail: EventTail;
  /** The outbox of audited calls (the `Audited` middleware's pending, commit, removal). */
  eventOutbox: EventOutbox;
  /** The event log's reads (`events`, GET /events). */
  events: EventService;
  /** The writer of system events (once across instances), shared by sign-in and API key checks. */
  onceEvents: OnceEvents;
  /** Webhook endpoints (the delivery worker runs in createService). */
  webhooks: WebhookService;
}

export interface ServicesOptions {
  /** EVENT_RETENTION (config.events); default 30 days. */
  events?: AppConfig['events'];
}

/** Needs no configuration, so `npm run schema` builds the schema without one. */
export function createServices(options: ServicesOptions = {}): Services {
  const roles = new RoleService(new RoleRecords());
  const apiKeys = new ApiKeyService(new ApiKeyRecords());
  const auditEvents = new AuditEventService(new AuditEventRecords());
  const sessions = new SessionRecords();
  const eventServices = createEventServices(options.events);
  return {
    login: new LoginService(userAccountStore, sessions, authEventsOf(eventServices.onceEvents)),
    users: new UserService(new UserRecords(), roles, userApiKeysOf(apiKeys), authEventsOf(eventServices.onceEvents)),
    roles,
    menus: new MealMenuService(new MealMenuRecords()),
    auditEvents,
    apiKeys,
    passwordTickets: new PasswordTicketService(new PasswordTicketRecords(), new UserRecords(), roles, userAccountStore),
    refresh: new RefreshService(userAccountStore, sessions, auditRefreshReuse(auditEvents), changeEventsOf(eventServices.eventOutbox)),
    sessions: new SessionService(sessions, new UserCredentialRecords(), roles, authEventsOf(eventServices.onceEvents)),
    webhooks: new WebhookService(new WebhookRecords(options.events?.retentionSeconds ?? DEFAULT_EVENT_RETENTION_SECONDS), eventServices.eventLog),
    ...eventServices,
  };
}

/** auth/'s port to the outbox: a reused refresh token's session end is an event, caused by the session's user. */
function changeEventsOf(outbox: EventOutbox): ChangeEvents {
  return {
    record: ({ type, userId, tenantId, target }, change) =>
      outbox.around({ type, tenant_id: tenantId, actor: { type: 'user', id: userId }, target, data: { changes: [] } }, change, (changed) =>
        changed ? { tenant_id: tenantId, target, data: { changes: [] }, alsoChanged: [] } : null,
      ),
  };
}

/** The event log and the tail it wakes on each commit (the writer's own instance reads at once). */
function createEventServices(
  events: Pick<AppConfig['events'], 'retentionSeconds'> = { retentionSeconds: DEFAULT_EVENT_RETENTION_SECONDS },
): Pick<Services, 'eventLog' | 'eventTail' | 'eventOutbox' | 'events' | 'onceEvents'> {
  const eventTail = new EventTail();
  const logOptions = { retentionSeconds: events.retentionSeconds, onCommit: () => eventTail.wake() };
  const eventLog = new EventLog(logOptions);
  return { eventLog, eventTail, eventOutbox: new EventOutbox({ ...logOptions, targets: eventTargetCollections as never }), events: new EventService(new EventRecords()), onceEvents: new OnceEvents(eventLog) };
}

/**
 * The records audited calls write, by the GraphQL type an event names them
 * with: each write to them carries the call's event id (events/event-stamp.ts),
 * the evidence the reconciler reads.
 */
export const eventTargetCollections = {
  User: UserModel.collection,
  Role: RoleModel.collection,
  MealMenu: MealMenuModel.collection,
  ApiKey: ApiKeyModel.collection,
  Session: SessionModel.collection,
  Webhook: WebhookModel.collection,
  WebhookDelivery: WebhookDeliveryModel.collection,
};
/** Written by audited calls, but no event's target (a password ticket is a User event; a delivery made by a test send, a Webhook event). */
const alsoStampedCollections = [PasswordTicketModel.collection];

/** The reconciler of this instance: pending events older than the grace period are settled by their evidence. */
function createEventReconciler(config: AppConfig, logger: Logger, eventTail: EventTail, tuning: ServiceOptions['eventReconciler'] = {}): EventReconciler {
  stampEventIds([...Object.values(eventTargetCollections), ...alsoStampedCollections]);
  const graceMs = tuning.graceMs ?? config.events.pendingGraceSeconds * 1000;
  return new EventReconciler({
    records: eventTargetCollections as never,
    alsoStamped: alsoStampedCollections as never,
    graceMs,
    intervalMs: tuning.intervalMs ?? Math.min(10_000, Math.max(250, graceMs / 2)),
    onCommit: () => eventTail.wake(),
    onError: (err) => logger.error({ err }, 'pending events could not be reconciled; trying again'),
    onSettled: (counts) => logger.info({ reconciled: counts }, 'pending events reconciled'),
  });
}

/** The users area's port to API keys: deleteUser revokes the deleted user's keys. */
function userApiKeysOf(apiKeys: ApiKeyService): UserApiKeys {
  return {
    revokeKeysOf: async (tenantId, userId, revokedBy) => (await apiKeys.revokeEveryKeyOf(tenantId, userId, revokedBy)).length,
  };
}

const REFRESH_REUSE = declareAuditAction('auth.refresh-reuse');

/** A spent refresh token presented again is no caller's mutation: its session's user is the actor of the record. */
function auditRefreshReuse(trail: Pick<AuditEventService, 'record'>): RefreshReuseListener {
  return (session, client) =>
    trail.record({
      actor: { type: AuditActorType.user, id: session.userId },
      action: REFRESH_REUSE,
      target: { type: 'Session', id: session.id },
      tenant_id: session.tenantId,
      changes: [],
      requestId: client.requestId,
      ip: client.ip,
      outcome: AuditOutcome.failure,
    });
}

export function buildServiceSchema(services: Services = createServices()): Promise<GraphQLSchema> {
  return buildAppSchema<AppContext>({
    resolvers: [
      LoginResolver,
      UserResolver,
      RoleResolver,
      PermissionResolver,
      MealMenuResolver,
      AuditEventResolver,
      ApiKeyResolver,
      SchemaResolver,
      RefreshResolver,
      SessionResolver,
      PasswordTicketResolver,
      EventResolver,
      WebhookResolver,
      EventSubscriptionResolver,
    ],
    authChecker,
    instances: [
      new LoginResolver(services.login),
      new UserResolver(services.users),
      new RoleResolver(services.roles),
      new MealMenuResolver(services.menus),
      new AuditEventResolver(services.auditEvents),
      new ApiKeyResolver(services.apiKeys),
      new PasswordTicketResolver(services.passwordTickets),
      new RefreshResolver(services.refresh),
      new SessionResolver(services.sessions),
      new EventResolver(services.events),
      new WebhookResolver(services.webhooks),
    ],
  });
}

export interface ServiceOptions {
  logger?: Logger;
  /** Replaces the credential strategies (tests); default: API keys, then JWT. */
  resolveActor?: ActorResolver;
  /**
   * The services the schema was built with: the requests write to its audit
   * trail and `stop()` drains it (default: a new set, createServices(), whose
   * trail writes the same collection but is not the one the schema reads through).
   */
  services?: Pick<Services, 'auditEvents'> & Partial<Pick<Services, 'eventLog' | 'eventTail' | 'eventOutbox' | 'onceEvents'>>;
  /** The reconciler's timing (tests); default: EVENT_PENDING_GRACE, looked at every half of it (10 s at most). */
  eventReconciler?: { graceMs?: number; intervalMs?: number };
  /** Between two sweeps for keys about to expire (api-keys.expiring); default 60 s. */
  expirySweepIntervalMs?: number;
  /** Webhook delivery settings (tests: a fast retry schedule, a short timeout, a clock). */
  webhooks?: WebhookDeliveryOptions;
  /**
   * Deliver webhooks from a worker thread connected to this database (the entry point always
   * does; webhook-delivery.ts). Without it the worker runs on the caller's thread (tests).
   */
  deliveryThread?: DeliveryThreadDatabase & { entry?: URL };
  /** Subscription stream settings beyond the config's (tests: a short re-check interval). */
  eventSubscriptions?: { recheckMs?: number };
  /**
   * Where spans go when tracing is on (an OTLP endpoint is configured): in place of the
   * OTLP exporter (tests: the SDK's InMemorySpanExporter behind a SimpleSpanProcessor).
   */
  traceProcessor?: SpanProcessor;
  /** The embedded engine this process started, if any: its documents, WAL size and fsync latency join the metrics. */
  engine?: EngineObservation | null;
}

/** The REST surface as its OpenAPI document introduces it, with the service's two credential kinds. */
const openApi = {
  title: 'Admin gateway REST API',
  description:
    'API keys, access-control users and roles, restaurant meal menus and schemas. ' +
    'Every route is generated from the GraphQL operation of the same meaning (served at /graphql). ' +
    'Errors are application/problem+json (RFC 9457).',
  version: '1.0.0',
  // package.json's `license` (npm's UNLICENSED): proprietary, no licence granted; an SPDX expression says so with a LicenseRef.
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token (POST /auth/login) or an API key secret' },
    apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  },
};

/**
 * The HTTP application of the whole service. `stop()` also waits for the
 * audit records still being written, writes the API key usage still queued
 * and gives back the uses granted to this instance and not used, so call it
 * before closing the database.
 */
export async function createService(config: AppConfig, schema: GraphQLSchema, options: ServiceOptions = {}): Promise<AppHandle> {
  const logger = options.logger ?? createLogger(config);
  // Off unless an OTLP endpoint is configured; then the SDK is loaded and every request is a trace.
  const tracing = await startTracing(config.tracing, options.traceProcessor);
  // Not the endpoint: its URL may carry the collector's credentials.
  if (tracing) logger.info({ serviceName: config.tracing.serviceName, sampler: config.tracing.sampler.name }, 'tracing on: spans are exported over OTLP/HTTP');
  // This instance's own registry: another service in the same process counts apart.
  const metrics = new ServiceMetrics({ engine: options.engine });
  const services = options.services ?? createServices({ events: config.events });
  const { auditEvents } = services;
  const { eventLog, eventTail, eventOutbox, onceEvents } =
    services.eventLog && services.eventTail && services.eventOutbox && services.onceEvents
      ? { eventLog: services.eventLog, eventTail: services.eventTail, eventOutbox: services.eventOutbox, onceEvents: services.onceEvents }
      : createEventServices(config.events);
  // The tail and the system events' writer may come from createServices, built before this logger: their failures are logged here.
  eventTail.logTo(logger);
  onceEvents.logTo(logger);
  const reconciler = createEventReconciler(config, logger, eventTail, options.eventReconciler);
  reconciler.start();
  setListReadTimeLimit(config.listReadTimeLimitMs);
  limitPasswordWork(config.passwordWork);
  const { usageLogRetentionSeconds, usageRollupRetentionSeconds } = config.apiKeys;
  const keys = createApiKeyStore({ usageLogRetentionSeconds, usageRollupRetentionSeconds, logger });
  const usage = createUsageRecorder({ keys, logger });
  // Refusals of an identified key go to the same batches: the hourly rollups count them.
  const onRefused = (use: ApiKeyUse) => usage.record(use);
  // One check of API keys: requests made with a key and verifyApiKey both run it.
  const checkApiKey = createApiKeyCheck({ keys, accounts: userAccountStore, onRefused, events: authEventsOf(onceEvents) });
  const expirySweeper = new ApiKeyExpirySweeper({ write: (event) => onceEvents.write(event), unwritten: (events) => onceEvents.unwritten(events), intervalMs: options.expirySweepIntervalMs, logger });
  expirySweeper.start();
  const resolveActor =
    options.resolveActor ?? createActorResolver([apiKeyStrategy({ check: checkApiKey }), jwtStrategy(config.jwt, userAccountStore, new SessionRecords())]);
  const eventSubscriptions = new EventSubscriptions(eventTail, { ...config.eventSubscriptions, ...options.eventSubscriptions, logger });
  // Built once: the schema lookup answers these, and they are the OpenAPI document's components.
  const jsonSchemas = buildRestJsonSchemas(schema, restRoutes);
  publishSchemaCatalogue(schema, jsonSchemas);
  const app = await createApp(config, schema, {
    routes: restRoutes,
    openApi,
    jsonSchemas,
    createContext: withAuditTrail(createRequestContextFactory(config, resolveActor, usage, checkApiKey, metrics), auditEvents, eventOutbox),
    // No usable credential: 401 before the arguments of any operation but the open ones are read.
    admitCaller: credentialFirst({ metrics }),
    databaseAvailable: databaseConnected,
    // Every create takes an Idempotency-Key (both surfaces); a replayed createApiKey has no secret, a replayed createPasswordTicket no ticket.
    idempotency: {
      creates: createOperations,
      scopeOf: idempotencyScope,
      replayed: { ...apiKeyReplayedResults, ...userReplayedResults, ...webhookReplayedResults },
      records: new IdempotencyRecords(),
    },
    logger,
    subscriptions: { createContext: subscriptionContextFactory(config, resolveActor, eventSubscriptions, usage), checkCredential: subscriptionCredentialCheck(resolveActor) },
    metrics,
  });
  const onAttempt = (outcome: DeliveryOutcome, delaySeconds: number | null) => metrics.deliveryAttempted(outcome, delaySeconds);
  const { deliveryThread } = options;
  const webhookWorker = deliveryThread
    ? await startDeliveryThread(config, logger, { uri: deliveryThread.uri, dbName: deliveryThread.dbName }, { delivery: options.webhooks, entry: deliveryThread.entry, onAttempt })
    : startInlineDelivery(config, logger, { eventLog, eventTail }, options.webhooks, onAttempt);
  return {
    app: app.app,
    upgrade: app.upgrade,
    endStreams: () => {
      eventSubscriptions.close();
      app.endStreams?.();
    },
    async stop() {
      await expirySweeper.close();
      eventSubscriptions.close();
      await app.stop();
      await webhookWorker.close();
      await eventTail.close();
      await reconciler.close();
      await auditEvents.drain();
      await usage.close();
      // Uses granted to this instance and not used go back to their keys' windows.
      await keys.close();
      // The spans still queued are exported.
      await tracing?.stop();
      metrics.close();
    },
  };
}

/** auth/'s AuthEvents port as events (docs/events.md "System events"), each once across instances by its dedupeKey. */
function authEventsOf(once: OnceEvents): AuthEvents {
  return {
    apiKeyRateLimited(key, windowStart, windowSeconds) {
      once.raise({
        type: 'api-keys.rate-limited',
        tenant_id: key.tenantId,
        actor: { type: 'system', id: null },
        target: { type: 'ApiKey', id: key.id },
        data: { limit: key.rateLimit, window: windowSeconds, windowStart: windowStart.toISOString() },
        // The key's rate window is the clock hour: its first 429 in that hour is the occasion.
        dedupeKey: `api-keys.rate-limited:${key.id}:${windowStart.toISOString()}`,
      });
    },
    signInLocked(account, email, lockStart, lockedUntil) {
      once.raise({
        type: 'users.sign-in-locked',
        tenant_id: account.tenantId,
        actor: { type: 'system', id: null },
        target: { type: 'User', id: account.id },
        data: { email, lockedUntil: lockedUntil.toISOString() },
        dedupeKey: `users.sign-in-locked:${account.id}:${lockStart.toISOString()}`,
      });
    },
  };
}

const NO_SUBSCRIPTION_CREDENTIAL = "A subscription needs a credential: Authorization: Bearer <token or API key> (in connection_init's payload over WebSocket)";

/**
 * The context of a subscription (WebSocket or SSE): the credential resolved
 * as a request's (throws its 401/403/429), counted against the credential
 * it is, and resolved again each second by its stream (event-subscriptions.ts).
 */
function subscriptionContextFactory(config: AppConfig, resolveActor: ActorResolver, streams: EventSubscriptions, usage: UsageRecorder) {
  return async (header: SubscriptionHeaderReader, facts: SubscriptionRequestFacts): Promise<SubscriptionContext> => {
    // The stream's re-checks run every check of the credential but are no uses of it (an API key's quota stays the caller's).
    const recheck = () => resolveActor(header, { ...facts, recheck: true });
    const actor = await resolveActor(header, facts);
    if (!actor) throw errors.unauthenticated(NO_SUBSCRIPTION_CREDENTIAL);
    const { requestId, ip, origin, logger } = facts;
    // A stream's start is a use of an API key, logged as a request's is (its re-checks are not).
    if (actor.via.kind === 'api-key') {
      const status = hasPermission(actor, EVENTS_READ) ? 200 : 403;
      usage.record({ apiKeyId: actor.via.apiKeyId, at: new Date(), ip, origin: origin ?? null, method: facts.method, path: facts.path, operation: null, status, operations: ['Subscription.events'] });
    }
    return { actor, requestId, ip, origin, logger, config, subscription: { caller: { actor, credential: credentialOf(actor), recheck }, streams } };
  };
}

/** A WebSocket's credential checked at connection_init, as a stream's re-check is: no use of it is counted. */
function subscriptionCredentialCheck(resolveActor: ActorResolver) {
  return async (header: SubscriptionHeaderReader, facts: SubscriptionRequestFacts): Promise<void> => {
    const actor = await resolveActor(header, { ...facts, recheck: true });
    if (!actor) throw errors.unauthenticated(NO_SUBSCRIPTION_CREDENTIAL);
  };
}

/** What a subscription counts against: the API key, else the sign-in session, else the user. */
function credentialOf(actor: Actor): string {
  if (actor.via.kind === 'api-key') return `api-key:${actor.via.apiKeyId}`;
  return actor.via.sessionId ? `session:${actor.via.sessionId}` : `user:${actor.userId}`;
}
