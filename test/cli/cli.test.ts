import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../../src/auth/jwt.js';
import { loadConfig } from '../../src/config.js';
import { runNode } from '../support/child-process.js';
import { buildService, childEnv, startService, stopService } from '../support/service-process.js';

/**
 * `npm run cli -- ...` (dist/src/cli.js) against a DATA_DIR with no server
 * running: first-start work for scripts, and clear exit codes (1 failure, 2 usage).
 */
describe('the command line', () => {
  const JWT_SECRET = randomBytes(32).toString('hex');
  const ADMIN = { email: 'cli-admin@example.com', password: `Cl1-${randomBytes(8).toString('hex')}!` };
  let cli: string;
  let index: string;
  let workDir: string;

  beforeAll(() => {
    ({ cli, index } = buildService());
    workDir = mkdtempSync(path.join(os.tmpdir(), 'service-cli-'));
  }, 180_000);

  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  const env = () => childEnv({ DATA_DIR: path.join(workDir, 'data'), JWT_SECRET });
  const run = (...args: string[]) => runNode(cli, args, { env: env(), cwd: workDir });
  /** The CLI with `input` on its stdin. */
  const runWithInput = (input: string, ...args: string[]) => runNode(cli, args, { env: env(), cwd: workDir, input });

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
      expect(verifyAccessToken(config.jwt, accessToken)).toEqual({ sub: created.admin.id, tenant: null, roles: ['admin'], ver: 0 });
    });

    it('create-admin again is idempotent: exit 0, the same administrator printed (token below finds one user)', async () => {
      const result = await run('create-admin', '--email', ADMIN.email.toUpperCase(), '--password', `${ADMIN.password}-other`);
      expect([result.code, JSON.parse(result.stdout)]).toEqual([0, created.admin]);
      expect(result.stderr).toContain(`A platform user with the email ${ADMIN.email.toUpperCase()} already exists: left unchanged`);
    });

    it('ignores ADMIN_EMAIL/ADMIN_PASSWORD (first start\'s): an exported ADMIN_PASSWORD alone is no configuration error', async () => {
      const result = await runNode(cli, ['token', '--email', ADMIN.email], { env: { ...env(), ADMIN_PASSWORD: ADMIN.password }, cwd: workDir });
      expect([result.code, result.stderr]).toEqual([0, '']);
    });
  });

  describe('create-admin --password-stdin', () => {
    const STDIN_ADMIN = { email: 'stdin-admin@example.com', password: `St1n ${randomBytes(8).toString('hex')}` };
    let created: { code: number | null; stderr: string };

    beforeAll(async () => {
      // Only the first line is the password; a trailing space belongs to it.
      const result = await runWithInput(`${STDIN_ADMIN.password}\nnot the password\n`, 'create-admin', '--email', STDIN_ADMIN.email, '--password-stdin');
      created = { code: result.code, stderr: result.stderr };
    }, 60_000);

    it('creates the administrator (exit 0)', () => {
      expect(created).toEqual({ code: 0, stderr: '' });
    });

    it('stores the first line of stdin as the password: the server then accepts it at login', async () => {
      const service = await startService(index, { ...env(), NODE_ENV: 'development', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, workDir);
      try {
        const response = await fetch(new URL('/api/v1/auth/login', service.baseUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(STDIN_ADMIN),
        });
        expect(response.status).toBe(200);
      } finally {
        await stopService(service);
      }
    }, 60_000);
  });

  describe('create-admin refuses a password outside the password rule (exit 2, stating the rule)', () => {
    const RULE = 'The password must be 6 to 50 characters long and contain an uppercase letter, a lowercase letter, and a digit or a non-word character';

    it('from stdin', async () => {
      const result = await runWithInput('weakpass\n', 'create-admin', '--email', 'weak-stdin@example.com', '--password-stdin');
      expect({ code: result.code, stderr: result.stderr.trim() }).toEqual({ code: 2, stderr: RULE });
    });

    it('from --password', async () => {
      const result = await run('create-admin', '--email', 'weak-arg@example.com', '--password', 'Ab1');
      expect({ code: result.code, stderr: result.stderr.trim() }).toEqual({ code: 2, stderr: RULE });
    });
  });

  it('create-admin refuses an email that login would refuse (exit 2)', async () => {
    const result = await run('create-admin', '--email', 'root@example..com', '--password', ADMIN.password);
    expect({ code: result.code, stderr: result.stderr.trim() }).toEqual({ code: 2, stderr: 'The email "root@example..com" is not an email address' });
  });

  it('the usage text offers --password-stdin and says why --password is discouraged', async () => {
    const { stderr } = await run();
    expect([stderr.includes('--password-stdin'), /--password <password>.*discouraged.*visible/s.test(stderr)]).toEqual([true, true]);
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
      ['create-admin with both --password and --password-stdin', ['create-admin', '--email', 'a@example.com', '--password', 'Abcde1', '--password-stdin']],
      ['token without --email', ['token']],
      ['an unknown option', ['token', '--email', 'a@example.com', '--emial', 'b@example.com']],
      ['an option without its value', ['token', '--email']],
    ])('%s', async (_name, args) => {
      const result = await run(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Usage:');
    });

    it('create-admin --password-stdin with an empty stdin', async () => {
      const result = await runWithInput('', 'create-admin', '--email', 'a@example.com', '--password-stdin');
      expect([result.code, result.stderr.startsWith('No password on stdin\nUsage:')]).toEqual([2, true]);
    });
  });
});
