import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { exited } from '../support/child-process.js';
import { eventually } from '../support/webhook-receiver.js';
import { makeWebhook, useWebhookApp } from './webhook-fixtures.js';

/**
 * The receiver of docs/events.md, run as written: it takes the service's
 * signed deliveries, and refuses a signature under another version than
 * `v1` even when its value is the right HMAC (the prefix names the scheme).
 */
const world = useWebhookApp({ webhooks: { pollMs: 20 } });
let receiver: ChildProcess | undefined;
afterAll(async () => {
  receiver?.kill();
  if (receiver) await exited(receiver);
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('the documented receiver accepts a delivery and refuses a signature that is not v1', async () => {
  const docs = await readFile(new URL('../../docs/events.md', import.meta.url), 'utf8');
  const example = /A receiver in Node[^\n]*\n\n```js\n([\s\S]*?)```/.exec(docs)?.[1];
  expect(example).toBeDefined();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  // The secret is known once the endpoint exists; the receiver starts after.
  const hook = await makeWebhook(world.app, world.admin, { url, events: ['menus.create'] });
  receiver = spawn(process.execPath, ['--input-type=module', '-e', example!], { env: { WEBHOOK_SECRET: hook.secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  receiver.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  await eventually(async () => (await fetch(url, { method: 'POST', body: '{}' }).catch(() => null))?.status === 400);

  const sent = await world.app.rest('POST', `/webhooks/${hook.id}/test`, { token: world.admin.token });
  expect(sent.status).toBe(200);
  const delivery = await eventually(async () => {
    const [first] = (await world.app.rest('GET', `/webhooks/${hook.id}/deliveries`, { token: world.admin.token })).body.items;
    return first?.status !== 'pending' && first;
  });
  expect(delivery).toMatchObject({ status: 'delivered', responseStatus: 204 });
  await eventually(async () => printed.includes('webhooks.test'));

  const body = JSON.stringify({ type: 'forged' });
  const [id, timestamp] = ['msg_1', String(Math.floor(Date.now() / 1000))];
  const key = Buffer.from(hook.secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  const post = (signature: string) =>
    fetch(url, { method: 'POST', body, headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } });
  expect((await post(`v1,${mac}`)).status).toBe(204);
  expect((await post(`v1a,${mac}`)).status).toBe(400);
  expect((await post(mac)).status).toBe(400);
});
