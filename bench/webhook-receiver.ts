import { createServer } from 'node:http';

/**
 * The webhook bench's receiver, in its own process as a real receiver is
 * (its work is not the API's): notes when each `webhook-id` first arrived
 * and answers 204. `GET /arrivals` answers them as `{ id: epoch ms }`,
 * `DELETE /arrivals` forgets them, `GET /healthz` says it is up.
 * Environment: PORT.
 */
const arrivals = new Map<string, number>();
createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return void res.writeHead(200).end('ok');
  if (req.method === 'GET' && req.url === '/arrivals') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Object.fromEntries(arrivals)));
  if (req.method === 'DELETE' && req.url === '/arrivals') {
    arrivals.clear();
    return void res.writeHead(204).end();
  }
  const id = String(req.headers['webhook-id']);
  if (!arrivals.has(id)) arrivals.set(id, Date.now());
  req.resume().on('end', () => res.writeHead(204).end());
}).listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
