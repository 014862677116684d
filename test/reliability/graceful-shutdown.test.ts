import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited } from '../support/child-process.js';
import { ROOT } from '../support/test-build.js';
import { buildService, startService, stopService, type ServiceBuild, type ServiceProcess } from '../support/service-process.js';
import { connectionRefused, delay, LONG, menuBody, processesWithEnv, tryCall, userBody } from './reliability.js';
import { missingWrites, startWriteLoad } from './write-load.js';

/**
 * SIGTERM under load: requests the server has begun to read when the signal
 * comes all get their normal answer, the process exits 0, and every
 * acknowledged write is there after a restart on the same data.
 *
 * Then the same signal sent to `npm start`, as a container runtime or a
 * process manager sends it to the process it started: the node server stops
 * with it (no orphan holding the port and the data directory) and npm exits 0.
 * The long run (RELIABILITY=long) also sends Ctrl-C's SIGINT to npm's whole
 * process group, as a terminal does.
 */

const ADMIN = { email: 'term-admin@example.com', password: `T3rm-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');
/** In-flight creates held across the signal: half mid-processing, half with their body still to come. */
const HELD = 8;

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'graceful-shutdown-'));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

function serviceEnv(dataDir: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    JWT_SECRET,
    LOG_LEVEL: 'info',
  };
}

interface HeldRequest {
  /** The server has parsed the headers (it answered `100 Continue`): the request is in flight. */
  continued: Promise<void>;
  sendBody(): void;
  answer: Promise<{ status: number; body: any }>;
}

/** A POST on its own connection whose body is sent only when asked, after `100 Continue`. */
function heldPost(baseUrl: string, urlPath: string, body: unknown, token: string): HeldRequest {
  const payload = JSON.stringify(body);
  const req = request(new URL(urlPath, baseUrl), {
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      authorization: `Bearer ${token}`,
      expect: '100-continue',
    },
  });
  const continued = new Promise<void>((resolve) => req.once('continue', resolve));
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    // `on`: a reset socket may report more than one error.
    req.on('error', reject);
  });
  req.flushHeaders();
  return { continued, sendBody: () => req.end(payload), answer };
}

describe('SIGTERM to the service under load', () => {
  let build: ServiceBuild;
  let service: ServiceProcess;
  let token: string;
  let adminId: string;
  const dataDir = () => path.join(workDir, 'service-data');
  const acknowledged = { menus: [] as string[], users: [] as { id: string; email: string }[] };
  let held: Array<{ status: number; body: any }> = [];
  let background: ReturnType<typeof startWriteLoad>;

  beforeAll(async () => {
    build = buildService();
    service = await startService(build.index, serviceEnv(dataDir()), workDir);
    const login = await tryCall(service.baseUrl, 'POST', '/api/v1/auth/login', { body: ADMIN });
    token = login!.body.accessToken;
    adminId = (await tryCall(service.baseUrl, 'GET', '/api/v1/auth/me', { token }))!.body.id;

    // A background write load that is running when the signal comes.
    background = startWriteLoad({ baseUrl: service.baseUrl, token, adminId, tag: 'term', stopOnFailure: true });
    await background.untilAcknowledged(1);
    const requests = Array.from({ length: HELD }, (_, i) =>
      i % 2 === 0
        ? heldPost(service.baseUrl, '/api/v1/restaurant/meal-menus', menuBody(`held-${i}`), token)
        : heldPost(service.baseUrl, '/api/v1/access-control/users', userBody(`held-${i}@example.com`, adminId), token),
    );
    await Promise.all(requests.map((held) => held.continued));
    // Half of them are being processed (a user create hashes a password) when the signal comes.
    requests.slice(0, HELD / 2).forEach((held) => held.sendBody());
    service.child.kill('SIGTERM');
    await service.waitFor('shutting down');
    requests.slice(HELD / 2).forEach((held) => held.sendBody());
    held = await Promise.all(requests.map((held) => held.answer));
    await background.done;
  }, 180_000);

  afterAll(async () => {
    await stopService(service);
  });

  it('answers every request in flight at the signal with its normal answer', () => {
    expect(held.map((answer) => answer.status)).toEqual(Array(HELD).fill(201));
    for (const [i, answer] of held.entries()) {
      if (i % 2 === 0) acknowledged.menus.push(answer.body.id);
      else acknowledged.users.push({ id: answer.body.id, email: answer.body.email });
    }
  });

  it('answered the background load with successes only until it stopped accepting', () => {
    expect(background.refusals).toEqual([]);
    expect(background.menus.length).toBeGreaterThan(0);
    acknowledged.menus.push(...background.menus);
    acknowledged.users.push(...background.users);
  });

  it('exits with code 0', async () => {
    expect(await service.exit).toBe(0);
    expect(service.output()).toContain('"msg":"stopped"');
  });

  it('has every acknowledged write after a restart on the same data', async () => {
    service = await startService(build.index, serviceEnv(dataDir()), workDir);
    expect(await missingWrites(service.baseUrl, token, acknowledged)).toEqual([]);
  });
});

describe('a second signal while the service shuts down', () => {
  let service: ServiceProcess;

  afterAll(async () => {
    if (service) await stopService(service);
  });

  // Ctrl-C on `npm start` delivers SIGINT twice (the terminal's, and npm's
  // forward); a process manager may repeat SIGTERM. Neither may cut the drain short.
  it('still answers the request in flight and exits 0', async () => {
    service = await startService(buildService().index, serviceEnv(path.join(workDir, 'second-signal-data')), workDir);
    const token = (await tryCall(service.baseUrl, 'POST', '/api/v1/auth/login', { body: ADMIN }))!.body.accessToken;
    const inFlight = heldPost(service.baseUrl, '/api/v1/restaurant/meal-menus', menuBody('second-signal'), token);
    await inFlight.continued;
    service.child.kill('SIGINT');
    await service.waitFor('shutting down');
    service.child.kill('SIGINT');
    service.child.kill('SIGTERM');
    await delay(200);
    inFlight.sendBody();
    expect((await inFlight.answer).status).toBe(201);
    expect(await service.exit).toBe(0);
  }, 120_000);
});

interface NpmStart {
  npm: ChildProcess;
  output(): string;
  port: number;
}

/** `npm start` from the project root, as an operator runs it; resolves once the server listens. */
async function npmStart(dataDir: string, options: { detached: boolean }): Promise<NpmStart> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), ...serviceEnv(dataDir) };
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const bound = /listening on http:\/\/[^:]+:(\d+)/.exec(output)?.[1];
      if (bound) resolve(Number(bound));
    };
    npm.stdout!.on('data', onData);
    npm.stderr!.on('data', onData);
    npm.once('exit', (code) => reject(new Error(`npm start exited with ${code} before listening:\n${output}`)));
  });
  return { npm, output: () => output, port };
}

/** Everything left of one `npm start` (found by its unique DATA_DIR), so a failed run leaves no orphan. */
function killLeftovers(dataDir: string): void {
  for (const pid of processesWithEnv('DATA_DIR', dataDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const signals: Array<{ name: string; send: (npm: ChildProcess) => void; detached: boolean }> = [
  { name: 'SIGTERM to the npm process', send: (npm) => npm.kill('SIGTERM'), detached: false },
  // A terminal's Ctrl-C: SIGINT to every process of the foreground group (npm, and node).
  ...(LONG ? [{ name: "SIGINT to npm's process group (Ctrl-C)", send: (npm: ChildProcess) => process.kill(-npm.pid!, 'SIGINT'), detached: true }] : []),
];

describe.each(signals)('`npm start` and $name', ({ send, detached }) => {
  let dataDir: string;
  let started: NpmStart;
  let code: number | null;
  let leftovers: number[];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(workDir, 'npm-start-'));
    // npm runs the build first: this waits for tsc.
    started = await npmStart(dataDir, { detached });
    // A request in flight when the signal comes still gets its answer.
    const token = (await tryCall(`http://127.0.0.1:${started.port}`, 'POST', '/api/v1/auth/login', { body: ADMIN }))!.body.accessToken;
    const inFlight = heldPost(`http://127.0.0.1:${started.port}`, '/api/v1/restaurant/meal-menus', menuBody('npm'), token);
    await inFlight.continued;
    send(started.npm);
    await delay(100);
    inFlight.sendBody();
    expect((await inFlight.answer).status).toBe(201);
    code = await exited(started.npm);
    leftovers = processesWithEnv('DATA_DIR', dataDir);
  }, 300_000);

  afterAll(() => {
    killLeftovers(dataDir);
  });

  it('leaves no process of it running (no orphaned node server)', () => {
    expect(leftovers).toEqual([]);
  });

  it('frees the port', async () => {
    expect(await connectionRefused(started.port)).toBe(true);
  });

  it("releases the data directory's engine lock", () => {
    expect(existsSync(path.join(dataDir, 'engine.lock'))).toBe(false);
  });

  it('npm exits with code 0 after the server logged "stopped"', () => {
    expect(code).toBe(0);
    expect(started.output()).toContain('"msg":"stopped"');
  });
});
