import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Entry points compiled with tsc for tests that start them as child
 * processes. Only the entries' import graph is compiled (into dist/, which is
 * gitignored), so such a test does not depend on the rest of the project
 * compiling. The build is reused while no source under `watch` is newer.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface TestBuildOptions {
  /** Output folder under dist/test-builds; test files that share a name share the build. */
  name: string;
  /** Entry files, relative to the project root (e.g. `src/index.ts`). */
  entries: string[];
  /** Folder (relative to the root) whose .ts files make the build stale when changed. */
  watch: string;
}

const STAMP = '.built-from';
const LOCK_STALE_MS = 5 * 60_000;
const LOCK_POLL_MS = 200;

/** Builds (or reuses) and returns the output folder; a file `src/x.ts` is at `<out>/src/x.js`. */
export function buildForTest({ name, entries, watch }: TestBuildOptions): string {
  const outDir = path.join(ROOT, 'dist', 'test-builds', name);
  const isFresh = () => {
    const stamp = path.join(outDir, STAMP);
    return existsSync(stamp) && statSync(stamp).mtimeMs > newestSourceMtime(path.join(ROOT, watch));
  };
  if (isFresh()) return outDir;
  // Test files run in parallel processes: one builds, the others wait and reuse.
  withLock(`${outDir}.lock`, () => {
    if (isFresh()) return;
    const startedAt = new Date();
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [tsc, ...entries, '--outDir', outDir, '--rootDir', '.', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--target', 'es2023', '--skipLibCheck', '--esModuleInterop', '--types', 'node',
      // TypeGraphQL and Typegoose read the decorator metadata.
      '--experimentalDecorators', '--emitDecoratorMetadata'];
    // Emits even when some file has a type error elsewhere; the run of the output is what matters.
    spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
    const missing = entries.map((entry) => path.join(outDir, entry.replace(/\.ts$/, '.js'))).filter((file) => !existsSync(file));
    if (missing.length > 0) throw new Error(`building ${missing.join(', ')} failed`);
    // Dated from the start: a source saved during the build makes it stale.
    const stamp = path.join(outDir, STAMP);
    writeFileSync(stamp, entries.join('\n'));
    utimesSync(stamp, startedAt, startedAt);
  });
  return outDir;
}

function newestSourceMtime(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .reduce((newest, file) => Math.max(newest, statSync(path.join(dir, file)).mtimeMs), 0);
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
