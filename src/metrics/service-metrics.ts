import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { observeDatabasePool, type DatabasePoolObservation } from './database-pool.js';
import { RequestHistogram } from './request-histogram.js';

/** The two ways an operation is called. */
export type Surface = 'rest' | 'graphql';

/** What the embedded engine tells of itself (engine/'s RunningEngine or EngineThread, as far as metrics read it). */
export interface EngineObservation {
  /** Asked at each scrape (a promise: the engine may run in another thread). */
  stats(): { documents: number; walBytes: number } | Promise<{ documents: number; walBytes: number }>;
  onWalSync(listener: (seconds: number) => void): () => void;
}

/** How a webhook delivery attempt ended (webhooks/webhook-worker.ts). */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'held';

export interface ServiceMetricsOptions {
  /** The embedded engine of this process, when the service started it: documents, WAL size and fsync latency. */
  engine?: EngineObservation | null;
  /** Whether to read the database driver's connection pool (the process's mongoose connection); default true. */
  databasePool?: boolean;
}

/** The OpenTelemetry semantic conventions' buckets for http.server.request.duration, in seconds. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** From a live send (milliseconds after the commit) to the retry schedule's last step (10 h). */
const DELIVERY_DELAY_BUCKETS = [0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800, 7200, 18000, 36000, 86400];
/** fdatasync of a write-ahead log segment: sub-millisecond on a fast disk, seconds on a sick one. */
const FSYNC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Methods RFC 9110 and PATCH; any other is `_OTHER`, as OpenTelemetry says, so a client cannot mint series. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * The metrics of one service instance, in a registry of its own (never
 * prom-client's global one): several services in one process (the tests)
 * keep their own counts. The request path only calls `observeRequest` (a
 * series found by one key, a bucket search and three additions:
 * request-histogram.ts) and, on refusals, one counter; everything else is
 * read when Prometheus scrapes.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requestDuration: RequestHistogram<'surface' | 'http_request_method' | 'http_route' | 'operation' | 'http_response_status_code'>;
  private readonly documentsRefused: Counter<'limit'>;
  private readonly credentialsRefused: Counter<'credential' | 'reason'>;
  private readonly keyVerifications: Counter<'code'>;
  private readonly keyRateLimited: Counter;
  private readonly deliveries: Counter<'outcome'>;
  private readonly deliveryDelay: Histogram<'outcome'>;
  private readonly stops: Array<() => void> = [];

  constructor(options: ServiceMetricsOptions = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requestDuration = new RequestHistogram({
      name: 'http_server_request_duration_seconds',
      help: 'API requests (/graphql and /api/v1) by surface, method, route template, operation and status: time from arrival to the end of the answer',
      labelNames: ['surface', 'http_request_method', 'http_route', 'operation', 'http_response_status_code'],
      buckets: REQUEST_BUCKETS,
      registry: this.registry,
    });
    this.documentsRefused = new Counter({
      name: 'graphql_documents_refused_total',
      help: 'GraphQL documents refused by a limit before they ran (depth, aliases, directives, tokens, cost)',
      labelNames: ['limit'],
      registers,
    });
    this.credentialsRefused = new Counter({
      name: 'credential_refusals_total',
      help: 'Credentials refused (or missing where one is needed), by kind and reason',
      labelNames: ['credential', 'reason'],
      registers,
    });
    this.keyVerifications = new Counter({
      name: 'api_key_verifications_total',
      help: 'verifyApiKey answers, by code (VALID, NOT_FOUND, REVOKED, EXPIRED, DISABLED, FORBIDDEN, RATE_LIMITED)',
      labelNames: ['code'],
      registers,
    });
    this.keyRateLimited = new Counter({
      name: 'api_key_rate_limited_total',
      help: 'Requests made with an API key refused with 429: the key used its hourly rate limit',
      registers,
    });
    this.deliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: "Webhook delivery attempts made by this instance, by outcome (delivered, retrying: failed and due again, failed: no retry left, held: its endpoint is disabled)",
      labelNames: ['outcome'],
      registers,
    });
    this.deliveryDelay = new Histogram({
      name: 'webhook_delivery_delay_seconds',
      help: "Time from an event's commit to the end of a delivery attempt of it, by outcome",
      labelNames: ['outcome'],
      buckets: DELIVERY_DELAY_BUCKETS,
      registers,
    });
    if (options.databasePool !== false) this.observePool(observeDatabasePool());
    if (options.engine) this.observeEngine(options.engine);
  }

  /**
   * One API request answered, and its duration in seconds. Every label is bounded (no raw path, no
   * id): `route` is the route template (`/api/v1/restaurant/meal-menus/{id}`, `/graphql`), '' when
   * none matched; `operation` the schema coordinate run (`Query.mealMenus`), `Query.*` for several
   * root fields, `unknown` when none was resolved; a method outside RFC 9110's (and PATCH) is `_OTHER`.
   */
  observeRequest(surface: Surface, requestMethod: string, route: string, operation: string, status: number, seconds: number): void {
    const method = KNOWN_METHODS.has(requestMethod) ? requestMethod : '_OTHER';
    const key = `${surface} ${method} ${operation} ${route} ${status}`;
    if (this.requestDuration.observe(key, seconds)) return;
    this.requestDuration.create(key, { surface, http_request_method: method, http_route: route, operation, http_response_status_code: status });
    this.requestDuration.observe(key, seconds);
  }

  /** A GraphQL document refused by one of its limits (graphql/limits.ts's refusedLimit names it). */
  documentRefused(limit: string): void {
    this.documentsRefused.inc({ limit });
  }

  /** A credential refused (`jwt`, `api_key`, `header` for a malformed or unrecognised one), or none where one is needed (`none`, reason `missing`). */
  credentialRefused(credential: string, reason: string): void {
    this.credentialsRefused.inc({ credential, reason });
  }

  /** One verifyApiKey answer. */
  keyVerified(code: string): void {
    this.keyVerifications.inc({ code });
  }

  /** A request made with an API key refused with 429. */
  keyRateLimitRefused(): void {
    this.keyRateLimited.inc();
  }

  /** A webhook delivery attempt ended; `delaySeconds` from its event's commit. */
  deliveryAttempted(outcome: DeliveryOutcome, delaySeconds: number | null): void {
    this.deliveries.inc({ outcome });
    if (delaySeconds !== null && Number.isFinite(delaySeconds)) this.deliveryDelay.observe({ outcome }, Math.max(0, delaySeconds));
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** Detaches the listeners this instance added (database pool, engine). */
  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private observePool(pool: DatabasePoolObservation): void {
    const registers = [this.registry];
    new Gauge({
      name: 'db_client_connection_count',
      help: "Connections of the database driver's pool, by state (used: checked out by an operation, idle)",
      labelNames: ['db_client_connection_state'],
      registers,
      collect() {
        const { used, idle } = pool.connections();
        this.set({ db_client_connection_state: 'used' }, used);
        this.set({ db_client_connection_state: 'idle' }, idle);
      },
    });
    new Gauge({
      name: 'db_client_connection_pending_requests',
      help: "Operations waiting for a connection of the driver's pool",
      registers,
      collect() {
        this.set(pool.connections().waiting);
      },
    });
    // Sums kept by the pool's listeners (plain numbers on the hot path), read at scrape.
    new Counter({
      name: 'db_client_connection_wait_time_seconds_total',
      help: "Time operations waited for a connection of the driver's pool, summed (divide by db_client_connection_checkouts_total for the mean)",
      registers,
      collect() {
        this.reset();
        this.inc(pool.waits().seconds);
      },
    });
    new Counter({
      name: 'db_client_connection_checkouts_total',
      help: "Connections checked out of the driver's pool",
      registers,
      collect() {
        this.reset();
        this.inc(pool.waits().checkouts);
      },
    });
    new Counter({
      name: 'db_client_connection_timeouts_total',
      help: "Operations that gave up waiting for a connection of the driver's pool",
      registers,
      collect() {
        this.reset();
        this.inc(pool.waits().timeouts);
      },
    });
    this.stops.push(() => pool.close());
  }

  private observeEngine(engine: EngineObservation): void {
    const registers = [this.registry];
    new Gauge({
      name: 'engine_documents',
      help: 'Documents the embedded engine holds, in every collection',
      registers,
      async collect() {
        this.set((await engine.stats()).documents);
      },
    });
    new Gauge({
      name: 'engine_wal_size_bytes',
      help: "Bytes of the embedded engine's write-ahead log not yet checkpointed away (0 in memory)",
      registers,
      async collect() {
        this.set((await engine.stats()).walBytes);
      },
    });
    const fsync = new Histogram({
      name: 'engine_wal_fsync_duration_seconds',
      help: "Duration of each fdatasync of the embedded engine's write-ahead log",
      buckets: FSYNC_BUCKETS,
      registers,
    });
    this.stops.push(engine.onWalSync((seconds) => fsync.observe(seconds)));
  }
}
