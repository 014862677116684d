import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode, type NodeRun } from '../support/child-process.js';
import { buildServiceTree } from '../support/test-build.js';

/**
 * `npm run bench` works end to end, run tiny: its own engine, service and
 * baseline processes, seeding, every load scenario once for 0.6 s at a few
 * connections (no warm-up), the engine row and a short memory run, `--json` to a temp file.
 * Asserts the report's shape and that every scenario got only the answers it
 * expects (never how fast anything was: that is the machine's business).
 */
const SCENARIOS = [
  'baseline GET one record',
  'REST GET meal-menus/{id}',
  'REST GET meal-menus/{id}, LOG_LEVEL=info',
  'GraphQL mealMenu(id)',
  'REST PATCH estimated-portions',
  'GraphQL updateEstimatedPortions',
  'REST list, a page of 20',
  'GraphQL mealMenus(limit: 20)',
  'REST GET api-keys/{id}, JWT',
  'REST GET api-keys/{id}, API key',
  'REST POST api-keys/verify',
  'REST POST access-control/users (Argon2)',
  'REST GET meal-menus/{id} during user creation',
];

let workDir: string;
let run: NodeRun;
let rows: Array<Record<string, any>>;

beforeAll(async () => {
  // The service tree the process tests use too: one build for the run.
  const outDir = buildServiceTree();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'bench-harness-'));
  const jsonFile = path.join(workDir, 'bench.json');
  // prettier-ignore
  const args = ['--only', 'service,memory', '--rounds', '1', '--duration', '0.6', '--warmup', '0', '--connections', '4',
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
    expect(rows.map((row) => row.name)).toEqual([...SCENARIOS, expect.stringMatching(/^engine findOne/), expect.stringMatching(/^memory:/)]);
    for (const row of rows) {
      expect(row).toMatchObject({ name: expect.any(String), reqPerSec: expect.any(Number), p50Ms: expect.any(Number), p99Ms: expect.any(Number) });
      expect(row.reqPerSec).toBeGreaterThanOrEqual(0);
    }
  });

  it('puts a target and whether it was met where one applies', () => {
    const withTarget = rows.filter((row) => row.target !== undefined).map((row) => row.name);
    expect(withTarget).toEqual([...SCENARIOS.slice(1, 11), expect.stringMatching(/^engine/), expect.stringMatching(/^memory/)]);
    for (const row of rows.filter((r) => r.target !== undefined)) {
      expect(typeof row.met).toBe('boolean');
    }
    expect(rows.find((row) => row.name === 'REST GET api-keys/{id}, API key')?.ratioOf).toBe('REST GET api-keys/{id}, JWT');
    expect(rows.find((row) => row.name === 'REST POST api-keys/verify')?.ratioOf).toBe('REST GET api-keys/{id}, JWT');
    expect(rows.find((row) => row.name === 'REST GET meal-menus/{id}, LOG_LEVEL=info')?.ratioOf).toBe('REST GET meal-menus/{id}');
  });

  it('got only the answers each scenario expects (no non-2xx, no GraphQL errors, no connection errors)', () => {
    for (const row of rows) expect({ name: row.name, unexpected: row.unexpected }).toEqual({ name: row.name, unexpected: {} });
  });
});
