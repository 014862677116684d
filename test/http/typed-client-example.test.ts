import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/test-build.js';

/**
 * `npm run example` as a team runs it on a fresh clone after `npm ci`: the
 * repository's files (tracked, and new ones git would track) are copied to a
 * temporary folder with this checkout's node_modules linked in, so nothing
 * generated or built here (.generated/, dist/) helps; the command runs there
 * as a child process and must generate, build, start a service, print the
 * tour, stop the service and clean up after itself. Its TMPDIR is the test's
 * own, to see that no data folder is left behind.
 */

const EXAMPLE_TMP_PREFIX = 'admin-gateway-example-';
/** Codegen, two compilations and the tour, on a busy 2-core machine. */
const RUN_TIMEOUT_MS = 600_000;

/** The tour's lines, one per step (examples/tour.ts), framed by the runner's (examples/run.ts). */
const TOUR_LINES = [
  /^Typed client tour against http:\/\/127\.0\.0\.1:\d+ \(a new service on the embedded engine, data in a temporary folder\)$/,
  /^ {2}auth: {5}signed in as admin@example\.com \(roles: admin; tenant: none, platform-wide\)$/,
  /^ {2}auth: {5}a wrong password is refused: UNAUTHENTICATED$/,
  /^ {2}users: {4}created cook@acme\.test \(roles: member; tenant: acme\); users listed: (admin@example\.com, cook@acme\.test|cook@acme\.test, admin@example\.com)$/,
  /^ {2}menus: {4}created "Friday lunch" for acme on 2030-01-18 \(lunch, 40 portions\); cook@acme\.test, signed in to acme, lists 1 menu that day$/,
  /^ {2}api keys: created "Kitchen display" \(keyId [\w-]{12}, scopes: menus:read; its secret is answered once, not printed\); active keys listed: 1$/,
  /^ {2}api keys: with the key as credential: menus listed: 1; users refused: FORBIDDEN$/,
  /^ {2}schemas: {2}\d+ JSON Schemas by name, among them ApiKey, MealMenu, User$/,
  /^ {2}audit: {4}the administrator's trail, newest first: api-keys\.create, menus\.create, users\.create$/,
  /^Tour done; the service stopped cleanly \(exit 0\) and its temporary data was removed\.$/,
];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end with only PATH, HOME and TMPDIR (nothing of the test runner's environment). */
function run(command: string, args: string[], cwd: string, tmpDir: string): Promise<Run> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), TMPDIR: tmpDir };
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function git(args: string[], cwd: string): string[] {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** What a clone holds: the tracked files and the new ones git would track (so an uncommitted file counts). */
function copyRepository(to: string): void {
  for (const file of git(['ls-files', '--cached', '--others', '--exclude-standard'], ROOT)) {
    const from = path.join(ROOT, file);
    if (!existsSync(from)) continue; // deleted in the work tree, not yet in the index
    mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    copyFileSync(from, path.join(to, file));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(to, 'node_modules'), 'dir');
}

const leftovers = (tmpDir: string) => readdirSync(tmpDir).filter((name) => name.startsWith(EXAMPLE_TMP_PREFIX));

let workDir: string;
let clone: string;
let tmpDir: string;
let untrackedBefore: string[];
let example: Run;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'typed-client-example-'));
  clone = path.join(workDir, 'clone');
  tmpDir = path.join(workDir, 'tmp');
  mkdirSync(tmpDir);
  copyRepository(clone);
  // A repository of its own, to ask git afterwards whether the run made anything it would track.
  git(['init', '-q'], clone);
  untrackedBefore = git(['ls-files', '--others', '--exclude-standard', '--directory'], clone);
  example = await run('npm', ['run', 'example'], clone, tmpDir);
}, RUN_TIMEOUT_MS);

afterAll(() => {
  if (!workDir) return;
  if (existsSync(path.join(clone, 'node_modules'))) unlinkSync(path.join(clone, 'node_modules'));
  rmSync(workDir, { recursive: true, force: true });
});

describe('npm run example on a fresh clone', () => {
  it('exits 0', () => {
    expect(example.code, `${example.stdout}\n${example.stderr}`).toBe(0);
  });

  it('prints the tour of every area, in order', () => {
    const lines = example.stdout.split('\n');
    const start = lines.findIndex((line) => TOUR_LINES[0]!.test(line));
    expect(start, example.stdout).toBeGreaterThanOrEqual(0);
    const tour = lines.slice(start, start + TOUR_LINES.length);
    tour.forEach((line, index) => expect(line).toMatch(TOUR_LINES[index]!));
    expect(tour).toHaveLength(TOUR_LINES.length);
  });

  it('prints no secret: no password, access token or API key secret', () => {
    const output = example.stdout + example.stderr;
    expect(output).not.toContain('Adm1nPassw0rd!');
    expect(output).not.toContain('C00kPassw0rd!');
    expect(output).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
    expect(output).not.toMatch(/ak_[\w-]{12}_/);
  });

  it('leaves no data folder behind', () => {
    expect(leftovers(tmpDir)).toEqual([]);
  });

  it('makes nothing git would track: the generated documents and the builds are ignored', () => {
    expect(existsSync(path.join(clone, '.generated/gql/graphql.ts'))).toBe(true);
    expect(existsSync(path.join(clone, 'dist/examples/run.js'))).toBe(true);
    expect(git(['ls-files', '--others', '--exclude-standard', '--directory'], clone)).toEqual(untrackedBefore);
  });

  it('fails with exit 1 and says why when the service cannot start, and still cleans up', async () => {
    // The built runner again, now with a service that exits at once.
    writeFileSync(path.join(clone, 'dist/src/index.js'), `process.stderr.write('no database for you\\n');\nprocess.exit(3);\n`);
    const failed = await run(process.execPath, ['dist/examples/run.js'], clone, tmpDir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('npm run example failed: the service exited (code 3) before listening');
    expect(failed.stderr).toContain("The service's last log lines:\nno database for you");
    expect(leftovers(tmpDir)).toEqual([]);
  });
});
