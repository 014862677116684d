import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from '../logger.js';
import { answerClientErrors } from './client-errors.js';

/** The service's HTTP server for an app: requests the parser refuses are answered as problems too. */
export function createHttpServer(app: RequestListener, logger: Logger): Server {
  const server = createServer(app);
  answerClientErrors(server, logger);
  return server;
}
