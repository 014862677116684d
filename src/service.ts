import type { GraphQLSchema } from 'graphql';
import { ApiKeyRecords, ApiKeyResolver, apiKeyReplayedResults, apiKeyRestRoutes, ApiKeyService, createApiKeyStore } from './api-keys/index.js';
import { AuditActorType, AuditEventRecords, AuditEventResolver, AuditEventService, AuditOutcome, auditRestRoutes, withAuditTrail } from './audit/index.js';
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
  SessionRecords,
  type ActorResolver,
  type ApiKeyUse,
  type AppContext,
  type RefreshReuseListener,
} from './auth/index.js';
import type { AppConfig } from './config.js';
import { setListReadTimeLimit } from './shared/index.js';
import { buildAppSchema } from './graphql/index.js';
import { type AppHandle, createApp, databaseConnected, IdempotencyRecords, type RestRoutes } from './http/index.js';
import { createLogger, type Logger } from './logger.js';
import { errors } from './errors/index.js';
import { EventSubscriptionResolver, EventSubscriptions, EventTail, type SubscriptionContext } from './events/index.js';
import type { SubscriptionHeaderReader, SubscriptionRequestFacts } from './http/index.js';
import type { Actor } from './auth/index.js';
import { MealMenuRecords, MealMenuResolver, mealMenuRestRoutes, MealMenuService } from './menus/index.js';
import { SchemaResolver, schemaRestRoutes } from './schemas/index.js';
import {
  accessControlRestRoutes,
  PasswordTicketRecords,
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
  /** The one feed of committed events on this instance (subscriptions, webhook fan-out). */
  eventTail: EventTail;
}

/** Needs no configuration, so `npm run schema` builds the schema without one. */
export function createServices(): Services {
  const roles = new RoleService(new RoleRecords());
  const apiKeys = new ApiKeyService(new ApiKeyRecords());
  const auditEvents = new AuditEventService(new AuditEventRecords());
  const sessions = new SessionRecords();
  return {
    login: new LoginService(userAccountStore, sessions),
    users: new UserService(new UserRecords(), roles, userApiKeysOf(apiKeys)),
    roles,
    menus: new MealMenuService(new MealMenuRecords()),
    auditEvents,
    apiKeys,
    passwordTickets: new PasswordTicketService(new PasswordTicketRecords(), new UserRecords(), roles, userAccountStore),
    refresh: new RefreshService(userAccountStore, sessions, auditRefreshReuse(auditEvents)),
    sessions: new SessionService(sessions, new UserCredentialRecords(), roles),
    // S (subscriptions): the tail, if E's wiring has not built it already.
    eventTail: new EventTail(),
  };
}

/** The users area's port to API keys: deleteUser revokes the deleted user's keys. */
function userApiKeysOf(apiKeys: ApiKeyService): UserApiKeys {
  return {
    revokeKeysOf: async (tenantId, userId, revokedBy) => (await apiKeys.revokeEveryKeyOf(tenantId, userId, revokedBy)).length,
  };
}

/** A spent refresh token presented again is no caller's mutation: its session's user is the actor of the record. */
function auditRefreshReuse(trail: Pick<AuditEventService, 'record'>): RefreshReuseListener {
  return (session, client) =>
    trail.record({
      actor: { type: AuditActorType.user, id: session.userId },
      action: 'auth.refresh-reuse',
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
  services?: Pick<Services, 'auditEvents'> & Partial<Pick<Services, 'eventTail'>>;
}

/** The REST surface as its OpenAPI document introduces it, with the service's two credential kinds. */
const openApi = {
  title: 'Admin gateway REST API',
  description:
    'API keys, access-control users and roles, restaurant meal menus and schemas. ' +
    'Every route is generated from the GraphQL operation of the same meaning (served at /graphql). ' +
    'Errors are application/problem+json (RFC 9457).',
  version: '1.0.0',
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
  const { auditEvents, eventTail = new EventTail() } = options.services ?? createServices();
  setListReadTimeLimit(config.listReadTimeLimitMs);
  limitPasswordWork(config.passwordWork);
  const { usageLogRetentionSeconds, usageRollupRetentionSeconds } = config.apiKeys;
  const keys = createApiKeyStore({ usageLogRetentionSeconds, usageRollupRetentionSeconds, logger });
  const usage = createUsageRecorder({ keys, logger });
  // Refusals of an identified key go to the same batches: the hourly rollups count them.
  const onRefused = (use: ApiKeyUse) => usage.record(use);
  // One check of API keys: requests made with a key and verifyApiKey both run it.
  const checkApiKey = createApiKeyCheck({ keys, accounts: userAccountStore, onRefused });
  const resolveActor =
    options.resolveActor ?? createActorResolver([apiKeyStrategy({ check: checkApiKey }), jwtStrategy(config.jwt, userAccountStore, new SessionRecords())]);
  const eventSubscriptions = new EventSubscriptions(eventTail, { ...config.eventSubscriptions, logger });
  const app = await createApp(config, schema, {
    routes: restRoutes,
    openApi,
    createContext: withAuditTrail(createRequestContextFactory(config, resolveActor, usage, checkApiKey), auditEvents),
    // No usable credential: 401 before the arguments of any operation but the open ones are read.
    admitCaller: credentialFirst(),
    databaseAvailable: databaseConnected,
    // Every create takes an Idempotency-Key (both surfaces); a replayed createApiKey has no secret, a replayed createPasswordTicket no ticket.
    idempotency: {
      creates: createOperations,
      scopeOf: idempotencyScope,
      replayed: { ...apiKeyReplayedResults, ...userReplayedResults },
      records: new IdempotencyRecords(),
    },
    logger,
    subscriptions: { createContext: subscriptionContextFactory(config, resolveActor, eventSubscriptions) },
  });
  return {
    app: app.app,
    upgrade: app.upgrade,
    endStreams: () => {
      eventSubscriptions.close();
      app.endStreams?.();
    },
    async stop() {
      eventSubscriptions.close();
      eventTail.close();
      await app.stop();
      await auditEvents.drain();
      await usage.close();
      // Uses granted to this instance and not used go back to their keys' windows.
      await keys.close();
    },
  };
}

/**
 * The context of a subscription (WebSocket or SSE): the credential resolved
 * as a request's (throws its 401/403/429), counted against the credential
 * it is, and resolved again each second by its stream (event-subscriptions.ts).
 */
function subscriptionContextFactory(config: AppConfig, resolveActor: ActorResolver, streams: EventSubscriptions) {
  return async (header: SubscriptionHeaderReader, facts: SubscriptionRequestFacts): Promise<SubscriptionContext> => {
    const recheck = () => resolveActor(header, facts);
    const actor = await recheck();
    if (!actor) throw errors.unauthenticated('A subscription needs a credential: Authorization: Bearer <token or API key> (in connection_init\'s payload over WebSocket)');
    const { requestId, ip, origin, logger } = facts;
    return { actor, requestId, ip, origin, logger, config, subscription: { caller: { actor, credential: credentialOf(actor), recheck }, streams } };
  };
}

/** What a subscription counts against: the API key, else the sign-in session, else the user. */
function credentialOf(actor: Actor): string {
  if (actor.via.kind === 'api-key') return `api-key:${actor.via.apiKeyId}`;
  return actor.via.sessionId ? `session:${actor.via.sessionId}` : `user:${actor.userId}`;
}
