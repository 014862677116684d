import { Router } from 'express';
import mongoose from 'mongoose';
import { databaseReadOnlyReason } from '../shared/index.js';
import { databaseConnected } from './use-database-gate.js';

/**
 * `/healthz`: the process answers. `/readyz`: the database answers a ping
 * (503 while it does not), for load balancers and orchestrators; 503
 * `{status: 'read-only', reason}` while the database takes no writes (a full
 * disk: reads are still answered, writes get 507).
 */
export function useHealth(): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const readOnly = databaseReadOnlyReason();
    if (readOnly !== undefined) {
      res.status(503).json({ status: 'read-only', reason: readOnly });
      return;
    }
    try {
      const db = mongoose.connection.db;
      if (!databaseConnected() || !db) throw new Error('not connected');
      await db.command({ ping: 1 });
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'unavailable' });
    }
  });
  return router;
}
