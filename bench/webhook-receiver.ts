import { createServer } from 'node:http';

/**
 * The webhook bench's receiver, in its own process as a real receiver is
 * (its work is not the API's): notes when each `webhook-id` first arrived
 * and answers 204, on `/slow` only after 2 s (a slow receiver). `GET /arrivals` answers them as `{ id: epoch ms }`,
 * `DELETE /arrivals` forgets them, `GET /healthz` says it is up.
 * Environment: PORT.
 */
const SLOW_RECEIVER_MS = 2000;
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
  const answer = () => res.writeHead(204).end();
  req.resume().on('end', () => (req.url === '/slow' ? setTimeout(answer, SLOW_RECEIVER_MS) : answer()));
}).listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
