import express from 'express';
import jwt from 'jsonwebtoken';
import { MongoClient, ObjectId } from 'mongodb';

/**
 * The bench's baseline, in its own process: the least `GET one record` needs
 * on the same engine as the service. express 5, a `jsonwebtoken` verify of
 * the service's kind of access token (HS256, issuer, audience, expiry), one
 * driver `findOne` by _id, a JSON answer. No logging, no validation beyond
 * that: it is the floor the service's reads are compared with.
 *
 * Environment: MONGODB_URI (with the database), PORT, JWT_SECRET,
 * JWT_ISSUER/JWT_AUDIENCE (default admin-gateway, as the service's).
 * Prints `baseline listening on http://127.0.0.1:<port>` once it listens.
 */
const { MONGODB_URI, PORT = '0', JWT_SECRET } = process.env;
const issuer = process.env.JWT_ISSUER ?? 'admin-gateway';
const audience = process.env.JWT_AUDIENCE ?? 'admin-gateway';
if (!MONGODB_URI || !JWT_SECRET) throw new Error('baseline: MONGODB_URI and JWT_SECRET are required');

const client = new MongoClient(MONGODB_URI);
await client.connect();
const menus = client.db().collection('mealmenus');

const app = express();
app.disable('x-powered-by');
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/menus/:id', async (req, res) => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  try {
    jwt.verify(token ?? '', JWT_SECRET, { algorithms: ['HS256'], issuer, audience });
  } catch {
    res.status(401).json({ error: 'unauthenticated' });
    return;
  }
  if (!ObjectId.isValid(req.params.id)) {
    res.status(400).json({ error: 'bad id' });
    return;
  }
  const menu = await menus.findOne({ _id: new ObjectId(req.params.id) });
  if (!menu) res.status(404).json({ error: 'not found' });
  else res.json(menu);
});

const server = app.listen(Number(PORT), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : PORT;
  console.log(`baseline listening on http://127.0.0.1:${port}`);
});

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void client.close().then(() => process.exit(0));
});
