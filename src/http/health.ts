import { Router } from 'express';
import mongoose from 'mongoose';
import { databaseConnected } from './database-gate.js';

/**
 * `/healthz`: the process answers. `/readyz`: the database answers a ping
 * (503 while it does not), for load balancers and orchestrators.
 */
export function useHealth(): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
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
