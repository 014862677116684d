import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESERVED_DESCRIPTORS } from '../../src/http/connection-limits.js';
import { buildService, callOverAgent, defaultModeEnv, startService, stopService, type ServiceProcess } from '../support/service-process.js';

/**
 * The service with a low open-file limit (`ulimit -n`) and more connections
 * held open than it has descriptors: it refuses the connections past its cap
 * (the limit less a reserve) instead of letting the database run out; a
 * reader on a connection opened before keeps its latency (as a ratio of its
 * own baseline), a write made meanwhile is answered 201, writes work after
 * the connections are released, and SIGTERM exits 0 (issue 27, item 7).
 */
const DESCRIPTORS = 1024;
const FLOOD = DESCRIPTORS + 200;
const ADMIN = { email: 'fd-admin@example.com', password: `Fd-${randomBytes(6).toString('hex')}!` };
const MENU = { name: 'Pressure lunch', date: '2026-03-03', mealType: 'lunch', tenant_id: 'tenant-fd' };

let workDir: string;
let service: ServiceProcess;
let token: string;
let menuId: string;
const held: Socket[] = [];
// One keep-alive connection, opened before the flood: the reader's and the writer's.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One JSON call over the agent, as the signed-in administrator once there is a token. */
function call(method: string, urlPath: string, body?: unknown, timeoutMs = 10_000): Promise<{ status: number; body: any }> {
  return callOverAgent(service, agent, method, urlPath, { body, token, timeoutMs });
}

/** The median time of `count` reads of the menu, each answered 200. */
async function readerMedianMs(count = 30): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await call('GET', `/api/v1/restaurant/meal-menus/${menuId}`);
    expect(response.status).toBe(200);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(count / 2)]!;
}

/** Opens FLOOD connections and keeps the ones the service does not close. */
async function flood(): Promise<number> {
  const { port } = new URL(service.baseUrl);
  for (let i = 0; i < FLOOD; i++) {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve).once('close', resolve));
    held.push(socket);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return held.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;
}

beforeAll(async () => {
  const build = buildService();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'service-fd-'));
  const env = {
    ...defaultModeEnv(path.join(workDir, 'data'), ADMIN),
    // All of the flood comes from 127.0.0.1: only the total cap is tested here.
    MAX_CONNECTIONS_PER_IP: '0',
  };
  service = await startService(build.index, env, workDir, ['bash', '-c', `ulimit -n ${DESCRIPTORS} && exec "$0" "$@"`]);
  const login = await call('POST', '/api/v1/auth/login', ADMIN);
  token = login.body.accessToken;
  const created = await call('POST', '/api/v1/restaurant/meal-menus', MENU);
  expect(created.status).toBe(201);
  menuId = created.body.id;
}, 120_000);

afterAll(async () => {
  held.forEach((socket) => socket.destroy());
  agent.destroy();
  if (service) await stopService(service);
  rmSync(workDir, { recursive: true, force: true });
});

describe(`the service under ulimit -n ${DESCRIPTORS}, ${FLOOD} connections held open`, () => {
  let baseline: number;
  let during: number;
  let kept: number;

  it('keeps at most its cap of them open and serves a reader and a write on a connection it had', async () => {
    baseline = await readerMedianMs();
    kept = await flood();
    during = await readerMedianMs();
    const created = await call('POST', '/api/v1/restaurant/meal-menus', { ...MENU, name: 'During the flood' });
    expect(created.status).toBe(201);
    // The reserve is kept: the cap is the limit less it (the reader's connection is one of them).
    expect(kept).toBeLessThanOrEqual(DESCRIPTORS - RESERVED_DESCRIPTORS);
    console.log(`descriptor pressure: ${kept} of ${FLOOD} kept; reader median ${baseline.toFixed(1)} ms before, ${during.toFixed(1)} ms during`);
    // Generous: a shared machine is noisy; what failed before was every write, not a few ms.
    expect(during / baseline).toBeLessThan(10);
  }, 120_000);

  it('takes writes after the connections are released, is ready, and exits 0 on SIGTERM', async () => {
    held.splice(0).forEach((socket) => socket.destroy());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await call('POST', '/api/v1/restaurant/meal-menus', { ...MENU, name: 'After the flood' })).status).toBe(201);
    expect((await call('GET', '/readyz')).status).toBe(200);
    agent.destroy();
    expect(await stopService(service)).toBe(0);
  }, 60_000);
});
