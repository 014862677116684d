import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import { makeExecutableSchema } from '@graphql-tools/schema';
import express from 'express';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { trackInFlight, type InFlight } from '../../src/http/in-flight.js';

/**
 * Shutdown waits for requests still being handled, also those whose client
 * has gone (server.close() waits for sockets only): over real HTTP, with
 * handlers held until the test lets them go.
 */

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A handler each call of which waits until `release()`. */
function heldHandler() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  return { released, reached, arrived: () => arrived(), release: () => release() };
}

async function listen(app: express.Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An app tracked by `inFlight` whose handler at `path` waits until `held.release()` and then ends its response (`ends: false`: never ends it). */
async function heldApp(inFlight: InFlight, path: string, ends = true) {
  const held = heldHandler();
  const app = express().use(inFlight.track).get(path, async (_req, res) => {
    held.arrived();
    if (!ends) return;
    await held.released;
    res.end('done');
  });
  return { url: `${await listen(app)}${path}`, held };
}

/** Sends a request and answers a way to drop it (the client leaves without reading an answer). */
function send(url: string, method = 'GET', body?: string) {
  const req = request(url, { method, agent: false, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} });
  req.on('error', () => {});
  req.end(body);
  return { leave: () => req.destroy() };
}

const pending = <T>(promise: Promise<T>, ms = 100) => Promise.race([promise.then(() => 'settled'), new Promise((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('trackInFlight', () => {
  it('is settled at once when nothing is being handled', async () => {
    expect(await trackInFlight(() => true).settled(10_000)).toBe(0);
  });

  it('waits for a request whose client left until its handler ends the response', async () => {
    const inFlight = trackInFlight(() => true);
    const { url, held } = await heldApp(inFlight, '/slow');
    const client = send(url);
    await held.reached;
    client.leave();
    const settled = inFlight.settled(10_000);
    expect(await pending(settled)).toBe('pending');
    held.release();
    expect(await settled).toBe(0);
  });

  it('waits for an answered request to finish, then is settled', async () => {
    const inFlight = trackInFlight(() => true);
    const { url, held } = await heldApp(inFlight, '/slow');
    send(url);
    await held.reached;
    const settled = inFlight.settled(10_000);
    expect(await pending(settled)).toBe('pending');
    held.release();
    expect(await settled).toBe(0);
  });

  it('stops waiting after the timeout and says how many were left', async () => {
    const inFlight = trackInFlight(() => true);
    const { url, held } = await heldApp(inFlight, '/never', false);
    send(url);
    await held.reached;
    expect(await inFlight.settled(50)).toBe(1);
  });

  it('settles every caller waiting at once when the last request ends', async () => {
    const inFlight = trackInFlight(() => true);
    const { url, held } = await heldApp(inFlight, '/slow');
    const client = send(url);
    await held.reached;
    client.leave();
    const first = inFlight.settled(10_000);
    const second = inFlight.settled(10_000);
    held.release();
    expect(await Promise.all([first, second])).toEqual([0, 0]);
  });

  it('does not wait for a request it does not count (a page whose client left may never end)', async () => {
    const inFlight = trackInFlight((path) => path.startsWith('/api/'));
    const { url, held } = await heldApp(inFlight, '/page', false);
    const client = send(url);
    await held.reached;
    client.leave();
    expect(await inFlight.settled(10_000)).toBe(0);
  });
});

describe('the app\'s stop()', () => {
  it('waits for an operation whose client left before it stops (the database is closed after it)', async () => {
    const held = heldHandler();
    let finished = false;
    const schema = makeExecutableSchema({
      typeDefs: 'type Query { ok: Boolean } type Mutation { slowWrite: Boolean! }',
      resolvers: {
        Mutation: {
          slowWrite: async () => {
            held.arrived();
            await held.released;
            finished = true;
            return true;
          },
        },
      },
    });
    const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'k'.repeat(40) });
    const handle = await createApp(config, schema, {
      routes: { 'Mutation.slowWrite': { method: 'POST', path: '/slow-write' } },
      createContext: async () => ({}),
      openApi: { title: 'Held', description: 'A held write', version: '0.0.1', securitySchemes: {} },
      logger: pino({ level: 'silent' }),
    });
    const client = send(`${await listen(handle.app)}/api/v1/slow-write`, 'POST', '{}');
    await held.reached;
    client.leave();
    const stopped = handle.stop();
    expect(await pending(stopped)).toBe('pending');
    held.release();
    await stopped;
    expect(finished).toBe(true);
  });
});
