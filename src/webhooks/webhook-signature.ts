import { createHmac } from 'node:crypto';
import { secretBytes } from './webhook-secret.js';

/** The Standard Webhooks headers of one POST: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function signedHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
