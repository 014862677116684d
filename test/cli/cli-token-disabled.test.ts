import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from '../support/child-process.js';
import { buildService, childEnv, startService, stopService } from '../support/service-process.js';

/** `cli token` issues nothing to a disabled user: the server would refuse the token anyway. */
describe('the command line token of a disabled user', () => {
  const JWT_SECRET = randomBytes(32).toString('hex');
  const password = () => `Cl1-${randomBytes(8).toString('hex')}!`;
  const FIRST = { email: 'cli-first@example.com', password: password() };
  const SECOND = { email: 'cli-second@example.com', password: password() };
  let cli: string;
  let index: string;
  let workDir: string;

  const env = () => childEnv({ DATA_DIR: path.join(workDir, 'data'), JWT_SECRET });
  const run = (...args: string[]) => runNode(cli, args, { env: env(), cwd: workDir });

  beforeAll(async () => {
    ({ cli, index } = buildService());
    workDir = mkdtempSync(path.join(os.tmpdir(), 'service-cli-disabled-'));
    for (const admin of [FIRST, SECOND]) expect((await run('create-admin', '--email', admin.email, '--password', admin.password)).code).toBe(0);
    const second = JSON.parse((await run('token', '--email', SECOND.email)).stdout);
    expect(second.accessToken).toEqual(expect.any(String));
    // The first administrator disables the second through the server, which is then stopped (the engine's DATA_DIR is the CLI's).
    const service = await startService(index, { ...env(), NODE_ENV: 'development', PORT: '0', HOST: '127.0.0.1' }, workDir);
    try {
      const login = await fetch(new URL('/api/v1/auth/login', service.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(FIRST),
      });
      const { accessToken } = (await login.json()) as { accessToken: string };
      const me = await fetch(new URL('/api/v1/auth/me', service.baseUrl), { headers: { authorization: `Bearer ${second.accessToken}` } });
      const { id } = (await me.json()) as { id: string };
      const disabled = await fetch(new URL(`/api/v1/access-control/users/${id}/disable`, service.baseUrl), {
        method: 'PATCH',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'cli test' }),
      });
      expect(disabled.status).toBe(200);
    } finally {
      await stopService(service);
    }
  }, 180_000);

  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  it('exits 1 saying the user is disabled, printing no token', async () => {
    const result = await run('token', '--email', SECOND.email);
    expect([result.code, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toContain('This user is disabled: no token is issued');
  });

  it('still prints one for an active user', async () => {
    const result = await run('token', '--email', FIRST.email);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).accessToken).toEqual(expect.any(String));
  });
});
