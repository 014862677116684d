import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { answerClientErrors } from './client-errors.js';
import { limitConnections } from './connection-limits.js';

/**
 * The service's HTTP server for an app: requests the parser refuses are
 * answered as problems too, and a whole request (headers and body) must
 * arrive within the configured time, else 408 (client-errors.ts) and the
 * connection closes: a body trickled a byte at a time, or a Content-Length
 * never completed, cannot hold a connection; and the connections open at
 * once are capped (connection-limits.ts).
 */
export function createHttpServer(
  app: RequestListener,
  logger: Logger,
  limits: AppConfig['http'],
  /** WebSocket upgrades (GraphQL subscriptions); none: upgrades are not answered. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
): Server {
  const requestTimeout = limits.requestTimeoutSeconds * 1000;
  const server = createServer(
    {
      requestTimeout,
      // The headers' own bound is the whole request's (Node's default, 60 s, is not: it would outlast a shorter REQUEST_TIMEOUT).
      headersTimeout: requestTimeout,
      // How often Node looks for late requests (default 30 s, which a short timeout would wait for).
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, requestTimeout / 4),
    },
    app,
  );
  if (upgrade) server.on('upgrade', upgrade);
  answerClientErrors(server, logger);
  limitConnections(server, limits, logger);
  return server;
}

/** A late request is answered at most this long after its time is up. */
const TIMEOUT_CHECK_MS = 1_000;
