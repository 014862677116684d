import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST as the receiver got it, with whether its Standard Webhooks signature checked. */
export interface Received {
  id: string;
  timestamp: string;
  body: string;
  event: any;
  headers: IncomingHttpHeaders;
  signatureValid: boolean;
}

/**
 * The Standard Webhooks check, written from the specification's words and
 * not from the service's code: the signed content is `<webhook-id>.<webhook-timestamp>.<body>`,
 * the key the base64-decoded part of the secret after `whsec_`, the
 * signature HMAC-SHA256 in base64, sent as `v1,<signature>` (several may
 * be given, space-separated).
 */
export function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!secret.startsWith('whsec_')) return false;
  const key = Buffer.from(secret.substring('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** How the receiver answers the n-th POST (0-based): a status, or 'hang' (never answers). */
export type Answer = number | 'hang';

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Sets the secret signatures are checked with (known once createWebhook answered). */
  setSecret(secret: string): void;
  /** Replaces how it answers. */
  answer(plan: (n: number) => Answer): void;
  /** TCP connections the senders opened to it so far. */
  connections(): number;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(plan: (n: number) => Answer = () => 200): Promise<WebhookReceiver> {
  let secret = '';
  let answerOf = plan;
  let n = 0;
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        body,
        event: JSON.parse(body),
        headers: req.headers,
        signatureValid: verifyStandardWebhook(secret, req.headers, body),
      });
      const answer = answerOf(n++);
      if (answer === 'hang') return;
      res.writeHead(answer, { location: answer >= 300 && answer < 400 ? 'http://127.0.0.1:1/' : '' }).end('ok');
    });
  });
  let connections = 0;
  server.on('connection', () => void (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    connections: () => connections,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    setSecret: (value) => void (secret = value),
    answer: (next) => void (answerOf = next),
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${received.length} of ${count} POSTs within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `check` until it answers a value (not undefined/false), or throws after the deadline. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
