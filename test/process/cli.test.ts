import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../../src/auth/jwt.js';
import { loadConfig } from '../../src/config.js';
import { runNode } from '../support/child-process.js';
import { buildService, childEnv } from './service-process.js';

/**
 * `npm run cli -- ...` (dist/src/cli.js) against a DATA_DIR with no server
 * running: first-start work for scripts, and clear exit codes (1 failure, 2 usage).
 */
describe('the command line', () => {
  const JWT_SECRET = randomBytes(32).toString('hex');
  const ADMIN = { email: 'cli-admin@example.com', password: `Cl1-${randomBytes(8).toString('hex')}!` };
  let cli: string;
  let workDir: string;

  beforeAll(() => {
    cli = buildService().cli;
    workDir = mkdtempSync(path.join(os.tmpdir(), 'service-cli-'));
  }, 180_000);

  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  const run = (...args: string[]) =>
    runNode(cli, args, { env: childEnv({ DATA_DIR: path.join(workDir, 'data'), JWT_SECRET }), cwd: workDir });

  describe('create-admin then token', () => {
    let created: { code: number | null; admin: { id: string; email: string } };

    beforeAll(async () => {
      const result = await run('create-admin', '--email', ADMIN.email, '--password', ADMIN.password);
      created = { code: result.code, admin: result.code === 0 ? JSON.parse(result.stdout) : null };
    }, 60_000);

    it('create-admin exits 0 and prints the new administrator', () => {
      expect(created).toMatchObject({ code: 0, admin: { id: expect.any(String), email: ADMIN.email } });
    });

    it('token prints a token that verifies with JWT_SECRET and names the user', async () => {
      const result = await run('token', '--email', ADMIN.email);
      expect(result.code).toBe(0);
      const { accessToken } = JSON.parse(result.stdout);
      const { config } = loadConfig({ JWT_SECRET });
      expect(verifyAccessToken(config.jwt, accessToken)).toEqual({ sub: created.admin.id, tenant: null, roles: ['admin'] });
    });

    it('create-admin refuses an email that already exists (exit 1)', async () => {
      const result = await run('create-admin', '--email', ADMIN.email, '--password', ADMIN.password);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`A platform user with the email ${ADMIN.email} already exists`);
    });
  });

  it('token for an unknown email exits 1 saying there is no such user', async () => {
    const result = await run('token', '--email', 'nobody@example.com');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No such user');
  });

  describe('bad usage exits 2 with the usage text', () => {
    it.each([
      ['no command', []],
      ['an unknown command', ['delete-admin', '--email', 'a@example.com']],
      ['create-admin without --password', ['create-admin', '--email', 'a@example.com']],
      ['token without --email', ['token']],
      ['an unknown option', ['token', '--email', 'a@example.com', '--emial', 'b@example.com']],
      ['an option without its value', ['token', '--email']],
    ])('%s', async (_name, args) => {
      const result = await run(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Usage:');
    });
  });
});
