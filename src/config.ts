import { randomBytes } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { isAcceptablePassword, isEmailAddress, PASSWORD_RULE } from './shared/index.js';

/**
 * Every setting of the service, read once from the environment, validated and
 * frozen. No other module reads `process.env`: start-up code calls
 * `loadConfig()` and passes the result down.
 */
export type NodeEnv = 'development' | 'test' | 'production';

export interface AppConfig {
  readonly nodeEnv: NodeEnv;
  readonly port: number;
  readonly host: string;
  /** null: start the embedded engine on `dataDir`. */
  readonly mongodbUri: string | null;
  readonly dataDir: string;
  readonly jwt: {
    readonly secret: string;
    /** True when no JWT_SECRET was given and a random one was made (tokens die with the process). */
    readonly secretGenerated: boolean;
    readonly issuer: string;
    readonly audience: string;
    /** Access token lifetime in seconds. */
    readonly expiresInSeconds: number;
  };
  /** Sign-in sessions (login's refresh tokens). */
  readonly sessions: {
    /** A session unused (no refresh) for this many seconds is over: SESSION_TTL, default 30 days. */
    readonly ttlSeconds: number;
  };
  /** First-start administrator; null unless both ADMIN_EMAIL and ADMIN_PASSWORD are set. */
  readonly admin: { readonly email: string; readonly password: string } | null;
  readonly logLevel: string;
  /** Allowed CORS origins; empty: no cross-origin access. `*` allows any. */
  readonly corsOrigins: readonly string[];
  /** Largest accepted request body, in bytes, and as written (for messages). */
  readonly bodyLimit: { readonly bytes: number; readonly label: string };
  /** The bytes of records one answer carries at most: a list page ends early, with its nextCursor, past it (src/shared/answer-budget.ts). */
  readonly pageByteBudget: number;
  readonly apiKeys: {
    /** How long API key usage-log entries are kept, in seconds (a TTL index removes older ones). */
    readonly usageLogRetentionSeconds: number;
    /** How long the hourly usage rollups are kept, in seconds (a TTL index removes older ones); they outlive the log. */
    readonly usageRollupRetentionSeconds: number;
  };
  /**
   * Which proxies' X-Forwarded-For to believe for the client IP (API key
   * allow-lists, usage logs): false (none, the default), a hop count, or a
   * comma-separated list of addresses/CIDRs, as express's `trust proxy` takes.
   */
  readonly trustProxy: boolean | number | string;
  /** Limits of the HTTP server (src/http/http-server.ts). */
  readonly http: {
    /** The time a whole request (headers and body) has to arrive, in seconds; later: 408 and the connection closed. */
    readonly requestTimeoutSeconds: number;
    /** Client connections open at once; null: the open-file limit less a reserve (src/http/connection-limits.ts). */
    readonly maxConnections: number | null;
    /** Client connections one IP may hold open at once; 0: no such cap. */
    readonly maxConnectionsPerIp: number;
  };
  /** How long a filtered list may read before it answers 503 (maxTimeMS, milliseconds; LIST_READ_TIME_LIMIT, default 2000). */
  readonly listReadTimeLimitMs: number;
  /** Sign-in throttling (src/auth/login-throttle.ts). */
  readonly loginThrottle: {
    /** Failed sign-ins per submitted email before each attempt must wait. */
    readonly accountFailures: number;
    /** Failed sign-ins per client IP (an IPv6 /64) before each attempt must wait. */
    readonly ipFailures: number;
    /** Quiet time, in seconds, after which a counter starts over. */
    readonly windowSeconds: number;
  };
  /** The bound on Argon2 work (src/auth/password.ts): running at once, waiting, and the Retry-After of a refusal. */
  readonly passwordWork: {
    readonly concurrency: number;
    readonly queue: number;
    readonly retryAfterSeconds: number;
  };
  /** The event log (src/events/). */
  readonly events: {
    /** How long events are kept, in seconds (EVENT_RETENTION, default 30 days; a TTL index removes older ones). */
    readonly retentionSeconds: number;
    /** How old a pending event must be before the reconciler settles it, in seconds (EVENT_PENDING_GRACE, default 30). */
    readonly pendingGraceSeconds: number;
  };
  /** Webhook delivery (src/webhooks/). */
  readonly webhooks: {
    /** WEBHOOK_ALLOW_PRIVATE=true: production may deliver to loopback, private and link-local addresses (and http). */
    readonly allowPrivate: boolean;
  };
  /** The `events` subscription (src/events/event-subscriptions.ts). */
  readonly eventSubscriptions: {
    /** Streams one credential (API key, sign-in session) may hold open across instances (EVENT_SUBSCRIPTIONS_PER_CREDENTIAL, default 5). */
    readonly perCredential: number;
    /** Events a stream may hold unsent before it is ended (EVENT_SUBSCRIPTION_BUFFER, default 1000). */
    readonly buffer: number;
  };
  /** OpenTelemetry tracing (src/shared/tracing.ts): off unless an OTLP endpoint is set. */
  readonly tracing: {
    /** The OTLP/HTTP traces URL spans are exported to; null: tracing is off (no SDK loaded). */
    readonly endpoint: string | null;
    /** OTEL_SERVICE_NAME (default admin-gateway): the `service.name` of every span. */
    readonly serviceName: string;
    /** OTEL_TRACES_SAMPLER and its OTEL_TRACES_SAMPLER_ARG (the ratio of the traceidratio samplers). */
    readonly sampler: { readonly name: TraceSamplerName; readonly ratio: number };
  };
  /** `GET /metrics` (src/http/metrics.ts). */
  readonly metrics: {
    /**
     * METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`, in any
     * environment. null: open outside production, and not served (404) in production.
     */
    readonly token: string | null;
  };
}

/** The standard OTEL_TRACES_SAMPLER values the service takes. */
export const TRACE_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

export interface LoadedConfig {
  config: AppConfig;
  /** Things start-up should log as warnings (e.g. an ephemeral JWT secret). */
  warnings: string[];
}

/** Thrown with every bad variable at once, so one start-up attempt shows them all. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const NODE_ENVS: readonly NodeEnv[] = ['development', 'test', 'production'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const MIN_SECRET_LENGTH = 32;
const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
/**
 * The longest access token lifetime. A token without a session (the CLI's)
 * cannot be called back before it expires (only a password change ends it
 * early); a day caps how long a leaked token stays useful. Signed-in clients
 * keep short tokens and refresh them (SESSION_TTL).
 */
export const MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;
/** EVENT_RETENTION: 30 days unless set. */
export const DEFAULT_EVENT_RETENTION_SECONDS = 30 * 24 * 3600;
/** SESSION_TTL: 30 days unless set; a year at most. */
export const DEFAULT_SESSION_TTL_SECONDS = 30 * 24 * 3600;
export const MAX_SESSION_TTL_SECONDS = 365 * 24 * 3600;

/** Reads a value: trimmed, empty counts as absent. */
function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function parseByteSize(text: string): number | null {
  const match = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(text);
  if (!match) return null;
  const bytes = Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()];
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : null;
}

export function parseDurationSeconds(text: string): number | null {
  const match = /^(\d+)\s*(s|m|h|d)?$/i.exec(text);
  if (!match) return null;
  const seconds = Number(match[1]) * DURATION_UNITS[(match[2] ?? 's').toLowerCase()];
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : null;
}

/**
 * Reads every setting, one named step per subject, in a fixed order (the
 * order of the problems in a ConfigError). Each step reports its bad
 * variables into `problems` and returns a usable fallback, so every step
 * runs and one start-up attempt shows every problem at once.
 */
export function loadConfig(env: Env = process.env): LoadedConfig {
  const problems: string[] = [];
  const warnings: string[] = [];

  const nodeEnv = readNodeEnv(env, problems);
  const server = readServer(env, nodeEnv, problems);
  const database = readDatabase(env, problems);
  const jwt = readJwt(env, nodeEnv, problems, warnings);
  const sessions = readSessions(env, problems);
  const admin = readAdmin(env, problems);
  const logLevel = readLogLevel(env, nodeEnv, problems);
  const corsOrigins = readCorsOrigins(env, problems);
  const sizes = readSizeLimits(env, problems);
  const apiKeys = readApiKeys(env, problems);
  const listReadTimeLimitMs = readListReadTimeLimit(env, problems);
  const trustProxy = readTrustProxy(env, problems);
  const loginThrottle = readLoginThrottle(env, problems);
  const http = readHttpLimits(env, problems);
  const passwordWork = readPasswordWork(env, problems);
  const events = readEvents(env, problems);
  const webhooks = readWebhooks(env, problems);
  const eventSubscriptions = readEventSubscriptions(env, problems);
  const tracing = readTracing(env, problems);
  const metrics = readMetrics(env, nodeEnv, problems, warnings);

  if (problems.length > 0) throw new ConfigError(problems);

  const config: AppConfig = {
    nodeEnv,
    ...server,
    ...database,
    jwt,
    sessions,
    admin,
    logLevel,
    corsOrigins,
    ...sizes,
    apiKeys,
    listReadTimeLimitMs,
    trustProxy,
    http,
    loginThrottle,
    passwordWork,
    events,
    webhooks,
    eventSubscriptions,
    tracing,
    metrics,
  };
  return { config: deepFreeze(config), warnings };
}

/** NODE_ENV (default development). */
function readNodeEnv(env: Env, problems: string[]): NodeEnv {
  const text = read(env, 'NODE_ENV') ?? 'development';
  if (NODE_ENVS.includes(text as NodeEnv)) return text as NodeEnv;
  problems.push(`NODE_ENV must be one of ${NODE_ENVS.join(', ')} (got "${text}")`);
  return 'development';
}

/** PORT (default 4000), HOST (default 0.0.0.0 in production, 127.0.0.1 otherwise). */
function readServer(env: Env, nodeEnv: NodeEnv, problems: string[]): Pick<AppConfig, 'port' | 'host'> {
  const portText = read(env, 'PORT') ?? '4000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    problems.push(`PORT must be an integer from 0 to 65535 (got "${portText}")`);
  }

  // Outside production the service answers with introspection, internal error text and
  // (without JWT_SECRET) a random secret: fine on one's own machine, never beyond it.
  const host = read(env, 'HOST') ?? (nodeEnv === 'production' ? '0.0.0.0' : '127.0.0.1');
  if (nodeEnv !== 'production' && !isLoopback(host)) {
    problems.push(
      `HOST=${host} would open a ${nodeEnv} server (introspection, error details, a random JWT secret) to other machines: ` +
        'set NODE_ENV=production (which requires JWT_SECRET) to listen beyond this machine, or HOST to a loopback address (127.0.0.1, ::1, localhost)',
    );
  }
  return { port, host };
}

/** MONGODB_URI (unset: the embedded engine), DATA_DIR (default ./data). */
function readDatabase(env: Env, problems: string[]): Pick<AppConfig, 'mongodbUri' | 'dataDir'> {
  const mongodbUri = read(env, 'MONGODB_URI') ?? null;
  if (mongodbUri && !/^mongodb(\+srv)?:\/\//.test(mongodbUri)) {
    problems.push('MONGODB_URI must start with mongodb:// or mongodb+srv://');
  }
  return { mongodbUri, dataDir: read(env, 'DATA_DIR') ?? './data' };
}

/** JWT_SECRET (required in production; elsewhere a random one), JWT_ISSUER, JWT_AUDIENCE, JWT_EXPIRES_IN (default 1h, at most 24h). */
function readJwt(env: Env, nodeEnv: NodeEnv, problems: string[], warnings: string[]): AppConfig['jwt'] {
  let secret = read(env, 'JWT_SECRET');
  let secretGenerated = false;
  if (secret && secret.length < MIN_SECRET_LENGTH) {
    problems.push(`JWT_SECRET must be at least ${MIN_SECRET_LENGTH} characters long`);
  } else if (!secret && nodeEnv === 'production') {
    problems.push('JWT_SECRET is required in production');
  } else if (!secret) {
    secret = randomBytes(48).toString('base64url');
    secretGenerated = true;
    if (nodeEnv === 'development') {
      warnings.push('JWT_SECRET is not set: using an ephemeral random secret; tokens stop working on restart');
    }
  }

  const expiresText = read(env, 'JWT_EXPIRES_IN') ?? '1h';
  const expiresInSeconds = parseDurationSeconds(expiresText);
  if (expiresInSeconds === null) {
    problems.push(`JWT_EXPIRES_IN must be a positive duration like 3600, 15m, 1h, 24h (got "${expiresText}")`);
  } else if (expiresInSeconds > MAX_TOKEN_LIFETIME_SECONDS) {
    problems.push(`JWT_EXPIRES_IN must be at most 24h (86400 seconds): a stolen access token works until it expires or its user's password changes (got "${expiresText}")`);
  }

  return {
    secret: secret ?? '',
    secretGenerated,
    issuer: read(env, 'JWT_ISSUER') ?? 'admin-gateway',
    audience: read(env, 'JWT_AUDIENCE') ?? 'admin-gateway',
    expiresInSeconds: expiresInSeconds ?? 3600,
  };
}

/**
 * METRICS_TOKEN: the bearer token a Prometheus scrape of /metrics sends, at least 32
 * characters (a guessable one would open the service's traffic figures). Production
 * without it does not serve /metrics at all, and says so at start-up.
 */
function readMetrics(env: Env, nodeEnv: NodeEnv, problems: string[], warnings: string[]): AppConfig['metrics'] {
  const token = read(env, 'METRICS_TOKEN');
  if (token && token.length < MIN_SECRET_LENGTH) {
    problems.push(`METRICS_TOKEN must be at least ${MIN_SECRET_LENGTH} characters long`);
    return { token: null };
  }
  if (!token && nodeEnv === 'production') warnings.push('METRICS_TOKEN is not set: GET /metrics is off (404) in production');
  return { token: token ?? null };
}

/** SESSION_TTL: how long a sign-in session lives unused (default 30d, at most 365d). */
function readSessions(env: Env, problems: string[]): AppConfig['sessions'] {
  const ttlText = read(env, 'SESSION_TTL') ?? '30d';
  const ttlSeconds = parseDurationSeconds(ttlText);
  if (ttlSeconds === null) {
    problems.push(`SESSION_TTL must be a positive duration like 3600, 12h, 30d (got "${ttlText}")`);
  } else if (ttlSeconds > MAX_SESSION_TTL_SECONDS) {
    problems.push(`SESSION_TTL must be at most 365d (31536000 seconds): a refresh token carries its session on until then (got "${ttlText}")`);
  }
  return { ttlSeconds: ttlSeconds !== null && ttlSeconds <= MAX_SESSION_TTL_SECONDS ? ttlSeconds : DEFAULT_SESSION_TTL_SECONDS };
}

/** ADMIN_EMAIL and ADMIN_PASSWORD: both or neither. */
function readAdmin(env: Env, problems: string[]): AppConfig['admin'] {
  const email = read(env, 'ADMIN_EMAIL');
  const password = env.ADMIN_PASSWORD; // not trimmed: spaces may be part of a password
  if (email && !password) problems.push('ADMIN_PASSWORD is required when ADMIN_EMAIL is set');
  if (!email && password) problems.push('ADMIN_EMAIL is required when ADMIN_PASSWORD is set');
  if (email && !isEmailAddress(email)) problems.push('ADMIN_EMAIL must be an email address');
  if (password && !isAcceptablePassword(password)) problems.push(`ADMIN_PASSWORD ${PASSWORD_RULE}`);
  return email && password ? { email, password } : null;
}

/** LOG_LEVEL (default info; silent under test). */
function readLogLevel(env: Env, nodeEnv: NodeEnv, problems: string[]): string {
  const logLevel = read(env, 'LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : 'info');
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  return logLevel;
}

/** CORS_ORIGINS: comma-separated; unset, no cross-origin access. */
function readCorsOrigins(env: Env, problems: string[]): string[] {
  const corsOrigins = (read(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  const badOrigins = corsOrigins.filter((origin) => origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin));
  if (badOrigins.length > 0) {
    problems.push(`CORS_ORIGINS entries must be * or http(s)://host[:port] (bad: ${badOrigins.join(', ')})`);
  }
  return corsOrigins;
}

/** BODY_LIMIT (default 1mb), PAGE_BYTE_BUDGET (default 4mb). */
function readSizeLimits(env: Env, problems: string[]): Pick<AppConfig, 'bodyLimit' | 'pageByteBudget'> {
  const bodyLimitText = read(env, 'BODY_LIMIT') ?? '1mb';
  const bodyLimitBytes = parseByteSize(bodyLimitText);
  if (bodyLimitBytes === null) {
    problems.push(`BODY_LIMIT must be a size like 1048576, 100kb, 1mb (got "${bodyLimitText}")`);
  }

  const pageBudgetText = read(env, 'PAGE_BYTE_BUDGET') ?? '4mb';
  const pageByteBudget = parseByteSize(pageBudgetText);
  if (pageByteBudget === null) {
    problems.push(`PAGE_BYTE_BUDGET must be a size like 4194304, 512kb, 4mb (got "${pageBudgetText}")`);
  }
  return { bodyLimit: { bytes: bodyLimitBytes ?? 0, label: bodyLimitText }, pageByteBudget: pageByteBudget ?? 0 };
}

/** USAGE_LOG_RETENTION (default 30d), USAGE_ROLLUP_RETENTION (default 400d). */
function readApiKeys(env: Env, problems: string[]): AppConfig['apiKeys'] {
  const retentionText = read(env, 'USAGE_LOG_RETENTION') ?? '30d';
  const usageLogRetentionSeconds = parseDurationSeconds(retentionText);
  if (usageLogRetentionSeconds === null) {
    problems.push(`USAGE_LOG_RETENTION must be a positive duration like 3600, 12h, 30d (got "${retentionText}")`);
  }
  const rollupText = read(env, 'USAGE_ROLLUP_RETENTION') ?? '400d';
  const usageRollupRetentionSeconds = parseDurationSeconds(rollupText);
  if (usageRollupRetentionSeconds === null) {
    problems.push(`USAGE_ROLLUP_RETENTION must be a positive duration like 3600, 12h, 400d (got "${rollupText}")`);
  }
  return { usageLogRetentionSeconds: usageLogRetentionSeconds ?? 0, usageRollupRetentionSeconds: usageRollupRetentionSeconds ?? 0 };
}

/** LIST_READ_TIME_LIMIT, in milliseconds (default 2000). */
function readListReadTimeLimit(env: Env, problems: string[]): number {
  const text = read(env, 'LIST_READ_TIME_LIMIT') ?? '2000';
  if (/^\d{1,7}$/.test(text) && Number(text) > 0) return Number(text);
  problems.push(`LIST_READ_TIME_LIMIT must be a whole number of milliseconds from 1 to 9999999 (got "${text}")`);
  return 2000;
}

/** TRUST_PROXY (default false). */
function readTrustProxy(env: Env, problems: string[]): AppConfig['trustProxy'] {
  const trustProxy = parseTrustProxy(read(env, 'TRUST_PROXY'));
  if (trustProxy !== null) return trustProxy;
  problems.push('TRUST_PROXY must be false, true, a hop count, or comma-separated addresses/CIDRs (loopback, 10.0.0.0/8, …)');
  return false;
}

/** PASSWORD_HASH_CONCURRENCY (default 2: half libuv's 4 threads stay for other work), PASSWORD_HASH_QUEUE (32). */
function readPasswordWork(env: Env, problems: string[]): AppConfig['passwordWork'] {
  const count = (name: string, fallback: number, min: number) => {
    const text = read(env, name) ?? String(fallback);
    if (/^\d{1,4}$/.test(text) && Number(text) >= min) return Number(text);
    problems.push(`${name} must be a whole number from ${min} to 9999 (got "${text}")`);
    return fallback;
  };
  return { concurrency: count('PASSWORD_HASH_CONCURRENCY', 2, 1), queue: count('PASSWORD_HASH_QUEUE', 32, 0), retryAfterSeconds: 1 };
}

/** LOGIN_ACCOUNT_FAILURES (default 5), LOGIN_IP_FAILURES (20), LOGIN_FAILURE_WINDOW (15m). */
function readLoginThrottle(env: Env, problems: string[]): AppConfig['loginThrottle'] {
  const count = (name: string, fallback: number) => {
    const text = read(env, name) ?? String(fallback);
    if (/^\d{1,6}$/.test(text) && Number(text) > 0) return Number(text);
    problems.push(`${name} must be a whole number from 1 to 999999 (got "${text}")`);
    return fallback;
  };
  const windowText = read(env, 'LOGIN_FAILURE_WINDOW') ?? '15m';
  const windowSeconds = parseDurationSeconds(windowText);
  if (windowSeconds === null) problems.push(`LOGIN_FAILURE_WINDOW must be a positive duration like 900, 15m, 1h (got "${windowText}")`);
  return { accountFailures: count('LOGIN_ACCOUNT_FAILURES', 5), ipFailures: count('LOGIN_IP_FAILURES', 20), windowSeconds: windowSeconds ?? 900 };
}

/** REQUEST_TIMEOUT (default 60s), MAX_CONNECTIONS (default: from the open-file limit), MAX_CONNECTIONS_PER_IP (256). */
function readHttpLimits(env: Env, problems: string[]): AppConfig['http'] {
  const timeoutText = read(env, 'REQUEST_TIMEOUT') ?? '60s';
  const requestTimeoutSeconds = parseDurationSeconds(timeoutText);
  if (requestTimeoutSeconds === null) problems.push(`REQUEST_TIMEOUT must be a positive duration like 30, 60s, 2m (got "${timeoutText}")`);
  const maxText = read(env, 'MAX_CONNECTIONS');
  const maxConnections = maxText === undefined ? null : /^\d{1,7}$/.test(maxText) && Number(maxText) > 0 ? Number(maxText) : undefined;
  if (maxConnections === undefined) problems.push(`MAX_CONNECTIONS must be a whole number from 1 to 9999999 (got "${maxText}")`);
  const perIpText = read(env, 'MAX_CONNECTIONS_PER_IP') ?? '256';
  const maxConnectionsPerIp = /^\d{1,7}$/.test(perIpText) ? Number(perIpText) : undefined;
  if (maxConnectionsPerIp === undefined) problems.push(`MAX_CONNECTIONS_PER_IP must be a whole number from 0 (no cap) to 9999999 (got "${perIpText}")`);
  return { requestTimeoutSeconds: requestTimeoutSeconds ?? 60, maxConnections: maxConnections ?? null, maxConnectionsPerIp: maxConnectionsPerIp ?? 256 };
}

/** EVENT_RETENTION (default 30d), EVENT_PENDING_GRACE (default 30s). */
function readEvents(env: Env, problems: string[]): AppConfig['events'] {
  const text = read(env, 'EVENT_RETENTION') ?? '30d';
  const retentionSeconds = parseDurationSeconds(text);
  if (retentionSeconds === null) problems.push(`EVENT_RETENTION must be a positive duration like 3600, 12h, 30d (got "${text}")`);
  const graceText = read(env, 'EVENT_PENDING_GRACE') ?? '30s';
  const pendingGraceSeconds = parseDurationSeconds(graceText);
  if (pendingGraceSeconds === null) problems.push(`EVENT_PENDING_GRACE must be a positive duration like 30, 30s, 2m (got "${graceText}")`);
  return { retentionSeconds: retentionSeconds ?? DEFAULT_EVENT_RETENTION_SECONDS, pendingGraceSeconds: pendingGraceSeconds ?? 30 };
}

/** 127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x or in brackets) and localhost: reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  const v4 = bare.startsWith('::ffff:') && isIPv4(bare.slice(7)) ? bare.slice(7) : bare;
  if (isIPv4(v4)) return v4.startsWith('127.');
  return isIPv6(bare) && /^(0{0,4}:){7}0{0,3}1$|^::1$/.test(bare);
}

/** TRUST_PROXY as express's `trust proxy` setting; null when unreadable. Unset: false (X-Forwarded-For is ignored). */
function parseTrustProxy(text: string | undefined): boolean | number | string | null {
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const named = new Set(['loopback', 'linklocal', 'uniquelocal']);
  const isAddress = (entry: string) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry) && (entry.includes('.') || entry.includes(':'));
  return entries.every((entry) => named.has(entry) || isAddress(entry)) ? entries.join(',') : null;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** WEBHOOK_ALLOW_PRIVATE (default false): see AppConfig.webhooks. */
function readWebhooks(env: Env, problems: string[]): AppConfig['webhooks'] {
  const text = read(env, 'WEBHOOK_ALLOW_PRIVATE') ?? 'false';
  if (text !== 'true' && text !== 'false') problems.push(`WEBHOOK_ALLOW_PRIVATE must be true or false (got "${text}")`);
  return { allowPrivate: text === 'true' };
}

/** EVENT_SUBSCRIPTIONS_PER_CREDENTIAL (default 5), EVENT_SUBSCRIPTION_BUFFER (default 1000). */
function readEventSubscriptions(env: Env, problems: string[]): AppConfig['eventSubscriptions'] {
  const count = (name: string, fallback: number) => {
    const text = read(env, name) ?? String(fallback);
    if (/^\d{1,6}$/.test(text) && Number(text) >= 1) return Number(text);
    problems.push(`${name} must be a whole number from 1 to 999999 (got "${text}")`);
    return fallback;
  };
  return { perCredential: count('EVENT_SUBSCRIPTIONS_PER_CREDENTIAL', 5), buffer: count('EVENT_SUBSCRIPTION_BUFFER', 1000) };
}

/**
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or OTEL_EXPORTER_OTLP_ENDPOINT (the
 * collector's base URL: `/v1/traces` is appended), as the OTLP exporter specification
 * reads them; neither, or OTEL_SDK_DISABLED=true: tracing is off. OTEL_SERVICE_NAME,
 * OTEL_TRACES_SAMPLER (default parentbased_always_on), OTEL_TRACES_SAMPLER_ARG (0 to 1, default 1).
 * The URL is never quoted back: it may carry a collector's credentials.
 */
function readTracing(env: Env, problems: string[]): AppConfig['tracing'] {
  const disabled = read(env, 'OTEL_SDK_DISABLED') ?? 'false';
  if (disabled !== 'true' && disabled !== 'false') problems.push(`OTEL_SDK_DISABLED must be true or false (got "${disabled}")`);
  const tracesUrl = read(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseUrl = read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const endpoint = tracesUrl ?? (baseUrl && `${baseUrl.replace(/\/+$/, '')}/v1/traces`);
  if (endpoint && !isHttpUrl(endpoint)) {
    problems.push(`${tracesUrl ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} must be an http:// or https:// URL (the OTLP/HTTP collector)`);
  }
  const samplerText = read(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  const sampler = TRACE_SAMPLERS.find((name) => name === samplerText);
  if (!sampler) problems.push(`OTEL_TRACES_SAMPLER must be one of ${TRACE_SAMPLERS.join(', ')} (got "${samplerText.slice(0, 40)}")`);
  const ratioText = read(env, 'OTEL_TRACES_SAMPLER_ARG') ?? '1';
  const ratio = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(ratioText) ? Number(ratioText) : undefined;
  if (ratio === undefined) problems.push(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (got "${ratioText.slice(0, 40)}")`);
  return {
    endpoint: disabled === 'true' ? null : (endpoint ?? null),
    serviceName: read(env, 'OTEL_SERVICE_NAME') ?? 'admin-gateway',
    sampler: { name: sampler ?? 'parentbased_always_on', ratio: ratio ?? 1 },
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
