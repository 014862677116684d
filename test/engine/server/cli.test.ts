import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildEngineCli } from '../durability/engine-process.js';

/** `npm run engine -- ...` validates its arguments before starting anything. */
describe('engine command line', () => {
  let cli: string;
  beforeAll(() => {
    cli = buildEngineCli('cli');
  }, 120_000);

  const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 20_000 });

  it('requires --dbpath or --in-memory', () => {
    const result = run('--port', '0');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--dbpath <dir> is required');
  });

  it('rejects a port outside 0-65535', () => {
    const result = run('--port', '70000', '--in-memory');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--port must be an integer from 0 to 65535');
  });

  it('rejects --dbpath together with --in-memory', () => {
    const result = run('--dbpath', '/tmp/x', '--in-memory');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('not both');
  });

  it('rejects an unknown option', () => {
    const result = run('--in-memory', '--bogus');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('bogus');
  });
});
