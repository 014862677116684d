import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Entry points compiled with tsc for tests that start them as child
 * processes. Only the entries' import graph is compiled (into dist/, which is
 * gitignored), so such a test does not depend on the rest of the project
 * compiling. A build is keyed by the state of its sources (every .ts file
 * under `watch`: path, size, mtime) and reused while that state is unchanged;
 * test files run in parallel processes, so one builds while the others wait.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface TestBuildOptions {
  /** Output folder under dist/test-builds; test files that share a name share the build. */
  name: string;
  /** Entry files, relative to the project root (e.g. `src/index.ts`). */
  entries: string[];
  /** Folders (relative to the root) whose .ts files the build is keyed by. */
  watch: string[];
}

const STAMP = '.built-from';
const LOCK_STALE_MS = 5 * 60_000;
const LOCK_POLL_MS = 200;

/**
 * The one build of the service, its CLI, the standalone engine and the bench,
 * for every test that runs one of them as a process (test/service,
 * test/cli, the areas' *-instances tests, test/bench, test/reliability):
 * a whole `npm test` compiles it once.
 */
export function buildServiceTree(): string {
  return buildForTest({
    name: 'service',
    entries: ['src/index.ts', 'src/webhook-delivery-thread.ts', 'src/engine/thread/engine-thread-entry.ts', 'src/cli.ts', 'src/engine/cli.ts', 'bench/index.ts', 'bench/baseline-server.ts'],
    watch: ['src', 'bench'],
  });
}

/**
 * The engine alone (src/engine/cli.ts, and its thread's entry), for the engine's own process tests:
 * much smaller than the service tree and untouched by changes outside
 * src/engine; one build for all of them.
 */
export function buildEngineTree(): string {
  return buildForTest({ name: 'engine', entries: ['src/engine/cli.ts', 'src/engine/thread/engine-thread-entry.ts'], watch: ['src/engine'] });
}

/** Builds (or reuses) and returns the output folder; a file `src/x.ts` is at `<out>/src/x.js`. */
export function buildForTest(options: TestBuildOptions): string {
  return ensureTestBuild(options).outDir;
}

/** buildForTest, also telling whether this call compiled (false: the build was reused). */
export function ensureTestBuild({ name, entries, watch }: TestBuildOptions): { outDir: string; compiled: boolean } {
  const outDir = path.join(ROOT, 'dist', 'test-builds', name);
  const stamp = path.join(outDir, STAMP);
  const builtFrom = () => (existsSync(stamp) ? readFileSync(stamp, 'utf8') : undefined);
  if (builtFrom() === sourceState(entries, watch)) return { outDir, compiled: false };
  let compiled = false;
  withLock(`${outDir}.lock`, () => {
    // Taken before compiling: a source saved during the build makes it stale.
    const state = sourceState(entries, watch);
    if (builtFrom() === state) return; // another process built it while this one waited
    rmSync(stamp, { force: true });
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [tsc, ...entries, '--outDir', outDir, '--rootDir', '.', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--target', 'es2023', '--skipLibCheck', '--esModuleInterop', '--types', 'node',
      // TypeGraphQL and Typegoose read the decorator metadata.
      '--experimentalDecorators', '--emitDecoratorMetadata'];
    // Emits even when some file has a type error elsewhere; the run of the output is what matters.
    spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
    const missing = entries.map((entry) => path.join(outDir, entry.replace(/\.ts$/, '.js'))).filter((file) => !existsSync(file));
    if (missing.length > 0) throw new Error(`building ${missing.join(', ')} failed`);
    writeFileSync(stamp, state);
    compiled = true;
  });
  return { outDir, compiled };
}

/** A digest of the entries and of every .ts file under the folders: a file added, removed or saved changes it. */
function sourceState(entries: string[], watch: string[]): string {
  const hash = createHash('sha256').update(entries.join('\n'));
  for (const dir of watch) {
    const files = readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    for (const file of files.sort()) {
      const { size, mtimeMs } = statSync(path.join(ROOT, dir, file));
      hash.update(`\n${dir}/${file} ${size} ${mtimeMs}`);
    }
  }
  return hash.digest('hex');
}

/** A directory as a cross-process lock (mkdir is atomic); a lock left by a crashed run expires. */
function withLock(lockDir: string, run: () => void): void {
  mkdirSync(path.dirname(lockDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() - lockTime(lockDir) > LOCK_STALE_MS) rmSync(lockDir, { recursive: true, force: true });
      else sleep(LOCK_POLL_MS);
    }
  }
  try {
    run();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function lockTime(lockDir: string): number {
  try {
    return statSync(lockDir).mtimeMs;
  } catch {
    return Date.now(); // just released: try again
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
