import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode, type NodeRun } from '../support/child-process.js';
import { buildServiceTree } from '../support/test-build.js';

/**
 * `npm run bench` works end to end, run tiny: its own engine, service and
 * baseline processes, a service in default mode, seeding, every load scenario
 * once for 0.6 s at a few connections (no warm-up), the engine row, a short
 * memory run and the growth part from 1,000 to 2,000 records, `--json` to a temp file.
 * Asserts the report's shape and that every scenario got only the answers it
 * expects (never how fast anything was: that is the machine's business).
 */
const SCENARIOS = [
  'baseline GET one record',
  'REST GET meal-menus/{id}',
  'GraphQL mealMenu(id)',
  'REST PATCH estimated-portions',
  'GraphQL updateEstimatedPortions',
  'REST list, a page of 20',
  'GraphQL mealMenus(limit: 20)',
  'REST GET meal-menus/{id}, reference',
  'REST GET meal-menus/{id}, LOG_LEVEL=info',
  'REST GET meal-menus/{id}, default mode',
  'REST PATCH estimated-portions, reference',
  'REST PATCH estimated-portions, default mode',
  'REST GET api-keys/{id}, JWT',
  'REST GET api-keys/{id}, API key',
  'REST POST api-keys/verify',
  'REST POST auth/refresh',
  'REST POST access-control/users (Argon2)',
  'REST GET meal-menus/{id} during user creation',
];
/** The growth part at 2,000 records of each kind: the rows at 1,000, the rows at 2,000, then the two RSS rows. */
const GROWTH = ['REST GET meal-menus/{id}', 'REST list of meal-menus, a page of 20', 'REST users search, a page of 20', 'REST audit-events, a page of 20'];
const GROWN = (size: string) => GROWTH.map((name, i) => `growth: ${name}, ${size} ${['menus', 'menus', 'users', 'events'][i]}`);

let workDir: string;
let run: NodeRun;
let rows: Array<Record<string, any>>;

beforeAll(async () => {
  // The service tree the process tests use too: one build for the run.
  const outDir = buildServiceTree();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'bench-harness-'));
  const jsonFile = path.join(workDir, 'bench.json');
  // prettier-ignore
  const args = ['--only', 'service,memory,growth', '--growth-records', '2000', '--rounds', '1', '--duration', '0.6', '--warmup', '0', '--connections', '4',
    '--memory-seconds', '1', '--users', '40', '--keys', '40', '--menus', '20', '--engine-iterations', '20', '--json', jsonFile];
  // No MONGODB_URI: the bench starts its own engine.
  run = await runNode(path.join(outDir, 'bench', 'index.js'), args, { env: { PATH: process.env.PATH ?? '', TMPDIR: os.tmpdir() } });
  rows = existsSync(jsonFile) ? JSON.parse(readFileSync(jsonFile, 'utf8')) : [];
}, 180_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('npm run bench (tiny run)', () => {
  it('ends with exit code 0 and prints the table', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('CPU us/req (server + engine)');
  });

  it('writes every scenario, the engine row and the memory row to the JSON file', () => {
    expect(rows.map((row) => row.name)).toEqual([
      ...SCENARIOS,
      expect.stringMatching(/^engine findOne/),
      expect.stringMatching(/^memory:/),
      ...GROWN('1,000'),
      ...GROWN('2,000'),
      'growth: service RSS after the 2,000-record runs vs before',
      'growth: engine RSS after the 2,000-record runs vs before',
    ]);
    for (const row of rows.filter((r) => r.kind !== 'rss')) {
      expect(row).toMatchObject({ name: expect.any(String), reqPerSec: expect.any(Number), p50Ms: expect.any(Number), p99Ms: expect.any(Number) });
      expect(row.reqPerSec).toBeGreaterThanOrEqual(0);
    }
  });

  it('puts a target and whether it was met where one applies', () => {
    const withTarget = rows.filter((row) => row.target !== undefined).map((row) => row.name);
    // The reference rows are reported (a ratio to the baseline), with no target of their own.
    const targeted = SCENARIOS.slice(1, 15).filter((name) => !name.endsWith(', reference'));
    expect(withTarget).toEqual([...targeted, expect.stringMatching(/^engine/), expect.stringMatching(/^memory/), ...GROWN('2,000')]);
    for (const row of rows.filter((r) => r.target !== undefined)) {
      expect(typeof row.met).toBe('boolean');
    }
    expect(rows.find((row) => row.name === 'REST GET api-keys/{id}, API key')?.ratioOf).toBe('REST GET api-keys/{id}, JWT');
    expect(rows.find((row) => row.name === 'REST POST api-keys/verify')?.ratioOf).toBe('REST GET api-keys/{id}, JWT');
    // The info and default-mode rows against the reference service, which like them serves nothing else.
    expect(rows.find((row) => row.name === 'REST GET meal-menus/{id}, LOG_LEVEL=info')?.ratioOf).toBe('REST GET meal-menus/{id}, reference');
    expect(rows.find((row) => row.name === 'REST GET meal-menus/{id}, default mode')?.ratioOf).toBe('REST GET meal-menus/{id}, reference');
    expect(rows.find((row) => row.name === 'REST PATCH estimated-portions, default mode')?.ratioOf).toBe('REST PATCH estimated-portions, reference');
    expect(rows.find((row) => row.name === 'REST GET meal-menus/{id}, reference')).toMatchObject({ ratioOf: 'baseline', ratio: expect.any(Number) });
    // The refresh is reported against the JWT read, with no target.
    expect(rows.find((row) => row.name === 'REST POST auth/refresh')).toMatchObject({ ratioOf: 'REST GET api-keys/{id}, JWT', ratio: expect.any(Number) });
    for (const [i, name] of GROWN('2,000').entries()) expect(rows.find((row) => row.name === name)?.ratioOf).toBe(GROWN('1,000')[i]);
  });

  it('gives the default-mode rows no engine CPU (the engine is inside the service) and the growth RSS rows their figures', () => {
    const defaultRead = rows.find((row) => row.name === 'REST GET meal-menus/{id}, default mode');
    expect(defaultRead?.cpuUsPerRequest?.server).toEqual(expect.any(Number));
    expect(defaultRead?.cpuUsPerRequest?.engine).toBeUndefined();
    for (const row of rows.filter((r) => r.kind === 'rss')) {
      expect(row.rss).toMatchObject({ beforeMiB: expect.any(Number), afterWritesMiB: expect.any(Number), afterMiB: expect.any(Number), writeSeconds: expect.any(Number) });
    }
  });

  it('got only the answers each scenario expects (no non-2xx, no GraphQL errors, no connection errors)', () => {
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect({ name: row.name, unexpected: row.unexpected }).toEqual({ name: row.name, unexpected: {} });
  });
});
