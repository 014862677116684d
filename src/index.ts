import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './database.js';
import { createHttpServer, GRAPHQL_PATH, REST_BASE_PATH } from './http/index.js';
import { createLogger } from './logger.js';
import { buildServiceSchema, createService, createServices } from './service.js';
import { markDatabaseReadOnly } from './shared/index.js';
import { backfillUserSearchKeys, bootstrapAdmin, migrateUserEmailIndex } from './users/index.js';

/**
 * Start-up only: config -> database (embedded engine unless MONGODB_URI) ->
 * first admin -> schema -> HTTP. SIGTERM/SIGINT drain HTTP, then close the
 * database and the engine.
 */
async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const { config, warnings } = loaded;
  const logger = createLogger(config);
  warnings.forEach((warning) => logger.warn(warning));

  const database = await openDatabase(config, logger);
  await migrateUserEmailIndex(logger);
  await bootstrapAdmin(config, logger);
  await backfillUserSearchKeys(logger);
  // One set of services: the schema's resolvers read the audit trail the requests write and stop() drains.
  const services = createServices({ events: config.events });
  const schema = await buildServiceSchema(services);
  const { app, stop, upgrade, endStreams } = await createService(config, schema, { logger, services, deliveryThread: { uri: database.uri }, engine: database.engine });

  const server = createHttpServer(app, logger, config.http, upgrade);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(config.port, config.host, resolve);
  });

  let stopping = false;
  // A keep-alive socket whose response ends during shutdown would otherwise stay
  // open (and delay the exit) until keepAliveTimeout: drop it once it is idle.
  server.on('request', (_req, res: ServerResponse) => {
    res.once('finish', () => {
      if (stopping) setImmediate(() => server.closeIdleConnections());
    });
  });
  const shutdown = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // The drain below forces connections closed after 10 s; should closing Apollo or the
    // database hang past that, the process still ends (exit 1, said in the log).
    setTimeout(() => {
      logger.error('shutdown did not finish in 30 s; exiting');
      process.exit(1);
    }, 30_000).unref();
    // Stop accepting, let in-flight requests finish, then drop idle keep-alive sockets.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Open subscriptions (SSE responses, WebSockets) end now, each told why, rather than hold the drain.
    endStreams?.();
    const forced = setTimeout(() => server.closeAllConnections(), 10_000);
    await closed;
    clearTimeout(forced);
    await stop();
    await database.close();
    logger.info('stopped');
    process.exit(exitCode);
  };
  // `on`, not `once`: a second signal must not kill a shutdown under way (Ctrl-C on
  // `npm start` delivers SIGINT twice: from the terminal and forwarded by npm).
  const onSignal = (signal: string, exitCode = 0) =>
    shutdown(signal, exitCode).catch((err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
  process.on('SIGINT', () => void onSignal('SIGINT'));

  // Said only once the signals are handled: whoever waits for this line (a supervisor, a
  // test) may stop the service at once, and an unhandled SIGTERM would kill it mid-way.
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  // The bound port, not config.port: with PORT=0 the system picks one.
  const url = `http://${shownHost}:${(server.address() as AddressInfo).port}`;
  logger.info({ graphql: `${url}${GRAPHQL_PATH}`, rest: `${url}${REST_BASE_PATH}`, docs: `${url}${REST_BASE_PATH}/docs` }, `listening on ${url}`);

  // The embedded engine could not write its files (a full disk): read-only from then on
  // (writes 507, reads answered, /readyz 503 read-only). Once the disk has space again, stop
  // as on a signal and exit 1, as mongod does on a failed journal write: the restart replays
  // every acknowledged write and takes writes again.
  // Any other failure (an I/O error, or memory the engine could not bring back to what its
  // disk holds) stops at once: waiting for space would not help.
  void database.failed.then(async (err) => {
    markDatabaseReadOnly(err.message);
    if (database.waitsForSpace()) {
      logger.fatal({ cause: err.message }, 'the database can no longer store writes: read-only until its disk has space again, then stopping for a restart');
      await database.whenSpaceIsBack();
      logger.fatal('the database disk has space again: stopping, so that a restart takes writes again');
    } else {
      logger.fatal({ cause: err.message }, 'the database can no longer store writes: stopping for a restart');
    }
    void onSignal('database failure', 1);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
