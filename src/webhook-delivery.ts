import { Worker } from 'node:worker_threads';
import type { AppConfig } from './config.js';
import type { EventLog, EventTail } from './events/index.js';
import type { Logger } from './logger.js';
import type { DeliveryOutcome } from './metrics/index.js';
import { anchorWebhookFanOut, WebhookWorker, type WebhookDeliveryOptions } from './webhooks/index.js';

/** An instance's webhook delivery, wherever it runs: stopped with the service. */
export interface WebhookDelivery {
  close(): Promise<void>;
}

/** Where a delivery thread reaches the database: the URI the service connected with. */
export interface DeliveryThreadDatabase {
  uri: string;
  dbName?: string;
}

/** What the thread is started with (structured-cloned: data only, no functions). */
export interface DeliveryThreadData {
  config: AppConfig;
  database: DeliveryThreadDatabase;
  options?: Omit<WebhookDeliveryOptions, 'now'>;
}

/** Told how each delivery attempt ended (the service's metrics), on the API's thread wherever the worker runs. */
export type DeliveryAttempted = (outcome: DeliveryOutcome, delaySeconds: number | null) => void;

/** What the delivery thread posts to the API's thread for each attempt. */
interface AttemptMessage {
  kind: 'webhook-attempt';
  outcome: DeliveryOutcome;
  delaySeconds: number | null;
}

/** An attempt's outcome as the thread posts it (webhook-delivery-thread.ts). */
export function attemptMessage(outcome: DeliveryOutcome, delaySeconds: number | null): AttemptMessage {
  return { kind: 'webhook-attempt', outcome, delaySeconds };
}

function isAttemptMessage(message: unknown): message is AttemptMessage {
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'webhook-attempt';
}

/** The worker of one instance (on whichever thread it runs), as the config sets it. */
export function webhookWorkerFor(
  config: AppConfig,
  logger: Logger,
  events: { eventLog: EventLog; eventTail: EventTail },
  options?: WebhookDeliveryOptions,
  onAttempt?: DeliveryAttempted,
): WebhookWorker {
  return new WebhookWorker({
    tail: events.eventTail,
    eventLog: events.eventLog,
    jwtSecret: config.jwt.secret,
    retentionSeconds: config.events.retentionSeconds,
    guarded: config.nodeEnv === 'production' && !config.webhooks.allowPrivate,
    logger,
    options,
    onAttempt,
  });
}

/** The worker on the caller's thread (tests that give it a clock, or no database URI to reach). */
export function startInlineDelivery(
  config: AppConfig,
  logger: Logger,
  events: { eventLog: EventLog; eventTail: EventTail },
  options?: WebhookDeliveryOptions,
  onAttempt?: DeliveryAttempted,
): WebhookDelivery {
  const worker = webhookWorkerFor(config, logger, events, options, onAttempt);
  worker.start();
  return { close: () => worker.close() };
}

/** The thread's entry beside this module (dist/src/ when built; a test passes the built one). */
const THREAD_ENTRY = new URL('./webhook-delivery-thread.js', import.meta.url);
/** A thread that died is started again after this long (a crash loop stays slow). */
const RESTART_DELAY_MS = 1000;

/**
 * The worker in a thread of its own, with its own database connection and
 * event tail: signing, sending and the driver's work for every delivery
 * (its database commands and its HTTP request) run beside the thread that answers
 * requests, not on it. Deliveries are shared with other instances through the
 * database as ever (claims with leases), so nothing changes for them. A thread
 * that dies is logged and started again; `close()` lets its sends end (each
 * within the send timeout) and then ends it.
 */
export async function startDeliveryThread(
  config: AppConfig,
  logger: Logger,
  database: DeliveryThreadDatabase,
  options: { delivery?: WebhookDeliveryOptions; entry?: URL; onAttempt?: DeliveryAttempted } = {},
): Promise<WebhookDelivery> {
  if (options.delivery?.now) throw new Error('a delivery thread keeps its own clock: a test that sets `now` runs the worker inline');
  // The thread takes a moment to start: what the API commits meanwhile is caught up from here.
  await anchorWebhookFanOut();
  const data: DeliveryThreadData = { config, database, options: options.delivery };
  let closing = false;
  let thread: Worker;
  let exited: Promise<void>;
  let restart: NodeJS.Timeout | null = null;
  const spawn = () => {
    restart = null;
    thread = new Worker(options.entry ?? THREAD_ENTRY, { workerData: data, name: 'webhook-delivery' });
    exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    thread.on('error', (err) => logger.error({ err }, 'the webhook delivery thread failed'));
    // Each attempt's outcome, posted by the thread: the metrics live on this thread.
    thread.on('message', (message: unknown) => {
      if (isAttemptMessage(message)) options.onAttempt?.(message.outcome, message.delaySeconds);
    });
    thread.on('exit', (code) => {
      if (closing) return;
      logger.error({ code }, `the webhook delivery thread exited; starting it again in ${RESTART_DELAY_MS} ms`);
      restart = setTimeout(spawn, RESTART_DELAY_MS);
      restart.unref();
    });
  };
  spawn();
  return {
    async close() {
      closing = true;
      if (restart) clearTimeout(restart);
      // It stops claiming, waits for its sends and its database connection to close, then exits
      // (a thread that died and waits for its restart has exited already).
      thread.postMessage('close');
      await exited;
    },
  };
}
