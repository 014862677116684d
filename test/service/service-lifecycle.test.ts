import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from '../support/child-process.js';
import { listeningTcpPorts } from '../support/listening-sockets.js';
import { buildService, childEnv, startService, stopService, type ServiceBuild, type ServiceProcess } from '../support/service-process.js';

/**
 * `node dist/src/index.js` as operators run it: start-up on a DATA_DIR with a
 * bootstrap administrator, graceful shutdown on SIGTERM, a restart on the same
 * data, refusal of a bad configuration, and logs free of secrets.
 */

const ADMIN = { email: 'admin@example.com', password: `Adm1n-${randomBytes(8).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');
const MENU = { name: 'Lifecycle lunch', date: '2026-03-03', mealType: 'lunch', tenant_id: 'tenant-lifecycle' };

let build: ServiceBuild;
let workDir: string;

beforeAll(() => {
  build = buildService();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'service-process-'));
}, 180_000);

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

function serviceEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: path.join(workDir, 'data'),
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    JWT_SECRET,
    LOG_LEVEL: 'info',
    ...overrides,
  };
}

async function call(service: ServiceProcess, method: string, urlPath: string, options: { body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${service.baseUrl}${urlPath}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text };
}

const login = (service: ServiceProcess, credentials: { email: string; password: string }) =>
  call(service, 'POST', '/api/v1/auth/login', { body: credentials });

/**
 * A login whose headers the server has parsed (it answered `100 Continue`)
 * before SIGTERM is sent; the body follows once shutdown has begun.
 */
function loginAcrossSigterm(service: ServiceProcess): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(ADMIN);
  const url = new URL('/api/v1/auth/login', service.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    });
    req.once('continue', () => {
      service.child.kill('SIGTERM');
      service.waitFor('shutting down').then(() => req.end(body), reject);
    });
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.once('error', reject);
    req.flushHeaders();
  });
}

describe('the service as a process', () => {
  const started: ServiceProcess[] = [];
  let first: ServiceProcess;
  let token: string;
  let menuId: string;

  beforeAll(async () => {
    first = await startService(build.index, serviceEnv(), workDir);
    started.push(first);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map(stopService));
  }, 30_000);

  it('becomes ready: /readyz answers 200', async () => {
    expect((await call(first, 'GET', '/readyz')).status).toBe(200);
  });

  it('signs the bootstrap administrator in over REST', async () => {
    const response = await login(first, ADMIN);
    expect(response).toMatchObject({ status: 200, body: { tokenType: 'Bearer', accessToken: expect.any(String) } });
    token = response.body.accessToken;
  });

  it('serves an authenticated request with that token', async () => {
    const response = await call(first, 'POST', '/api/v1/restaurant/meal-menus', { body: MENU, token });
    expect(response).toMatchObject({ status: 201, body: { id: expect.any(String), name: MENU.name } });
    menuId = response.body.id;
  });

  describe('its embedded engine (no MONGODB_URI)', () => {
    const socketFile = () => path.join(workDir, 'data', 'socket', 'engine.sock');

    it('is reached over a unix socket under DATA_DIR, which it logs', () => {
      const line = first.output().split('\n').find((l) => l.includes('"msg":"database connected"'));
      expect(JSON.parse(line ?? '{}')).toMatchObject({ embedded: true, engine: `mongodb://${encodeURIComponent(socketFile())}/` });
    });

    it('keeps the socket to its user: file 0600 in a directory 0700', () => {
      expect(statSync(socketFile()).isSocket()).toBe(true);
      expect(statSync(socketFile()).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(socketFile())).mode & 0o777).toBe(0o700);
    });

    it('opens no TCP port: the process listens on the HTTP port only', () => {
      expect(listeningTcpPorts(first.child.pid!)).toEqual([Number(new URL(first.baseUrl).port)]);
    });
  });

  it('answers a request that is in flight when SIGTERM arrives', async () => {
    const response = await loginAcrossSigterm(first);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ accessToken: expect.any(String) });
  });

  it('then exits with code 0 and logs "stopped"', async () => {
    expect(await first.exit).toBe(0);
    expect(first.output()).toMatch(/"msg":"stopped"/);
    expect(existsSync(path.join(workDir, 'data', 'socket', 'engine.sock'))).toBe(false);
  });

  describe('after a restart on the same DATA_DIR', () => {
    const OTHER_ADMIN = { email: 'second-admin@example.com', password: `Other-${randomBytes(8).toString('hex')}!` };
    let second: ServiceProcess;

    beforeAll(async () => {
      // Other bootstrap variables: they must be ignored since the database already has a user.
      second = await startService(build.index, serviceEnv({ ADMIN_EMAIL: OTHER_ADMIN.email, ADMIN_PASSWORD: OTHER_ADMIN.password }), workDir);
      started.push(second);
    }, 60_000);

    it('created the administrator on the first start only', () => {
      expect(first.output()).toContain('created the platform administrator');
      expect(second.output()).not.toContain('created the platform administrator');
    });

    it('does not create an administrator from the new bootstrap variables', async () => {
      expect((await login(second, OTHER_ADMIN)).status).toBe(401);
    });

    it('still signs the first administrator in', async () => {
      expect((await login(second, ADMIN)).status).toBe(200);
    });

    it('still serves the menu created before the restart', async () => {
      const response = await call(second, 'GET', `/api/v1/restaurant/meal-menus/${menuId}`, { token });
      expect(response).toMatchObject({ status: 200, body: { id: menuId, ...MENU } });
    });

    it('never writes the passwords, the JWT secret or an access token to stdout or stderr', async () => {
      const { body } = await login(second, ADMIN);
      await call(second, 'GET', '/api/v1/restaurant/meal-menus', { token: body.accessToken });
      await stopService(second);
      const output = first.output() + second.output();
      for (const secret of [ADMIN.password, OTHER_ADMIN.password, JWT_SECRET, token, body.accessToken]) {
        expect(output).not.toContain(secret);
      }
    });
  });
});

describe('a bad configuration', () => {
  const run = (env: Record<string, string>) => runNode(build.index, [], { env: childEnv(env), cwd: workDir });
  const dataDir = () => path.join(workDir, 'refused-data');

  it('stops start-up with a non-zero code, naming every bad variable', async () => {
    const result = await run({ PORT: 'abc', BODY_LIMIT: 'zz', DATA_DIR: dataDir() });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/PORT must be .*"abc"/);
    expect(result.stderr).toMatch(/BODY_LIMIT must be .*"zz"/);
  });

  it('refuses to start in production without JWT_SECRET', async () => {
    const result = await run({ NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir() });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('JWT_SECRET is required in production');
  });

  it('refuses to listen beyond this machine outside production, saying to set NODE_ENV=production', async () => {
    const result = await run({ PORT: '0', HOST: '0.0.0.0', DATA_DIR: dataDir() });
    expect([result.code, result.stderr]).toEqual([1, expect.stringContaining('set NODE_ENV=production (which requires JWT_SECRET)')]);
  });
});

describe('with nothing configured', () => {
  it('listens on this machine only (127.0.0.1)', async () => {
    const service = await startService(build.index, { PORT: '0', LOG_LEVEL: 'info', DATA_DIR: path.join(workDir, 'default-data') }, workDir);
    try {
      expect(new URL(service.baseUrl).hostname).toBe('127.0.0.1');
    } finally {
      expect(await stopService(service)).toBe(0);
    }
  });
});
