import type { RequestHandler } from 'express';
import mongoose from 'mongoose';
import { errors } from '../errors/index.js';

/**
 * Whether the driver sees the database now: mongoose's connection state,
 * which follows the driver's heartbeat (every second, database.ts).
 */
export function databaseConnected(): boolean {
  return mongoose.connection.readyState === 1;
}

/**
 * While the database is away, an API request is answered at once with 503
 * and Retry-After (both surfaces, through the error answers) instead of
 * waiting in mongoose's buffer or the driver's server selection for seconds
 * and then failing as a 500. `available` says whether the database answers
 * now; `applies` picks the requests that need it (API calls, not the public
 * documents).
 */
export function useDatabaseGate(available: () => boolean, applies: (path: string) => boolean): RequestHandler {
  return (req, _res, next) => {
    if (!applies(req.path) || available()) {
      next();
      return;
    }
    next(errors.databaseAway());
  };
}
