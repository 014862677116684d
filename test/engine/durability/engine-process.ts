import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The engine as a child process, built from the current sources: only the
 * engine's import graph is compiled (into dist/, which is gitignored), so the
 * test does not depend on the rest of the project compiling.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * Builds into dist/test-builds/<name>; each test file uses its own name so
 * that parallel test files never write the same output. A build newer than
 * every engine source is reused.
 */
export function buildEngineCli(name: string): string {
  const outDir = path.join(ROOT, 'dist', 'test-builds', name);
  const cli = path.join(outDir, 'src', 'engine', 'cli.js');
  if (existsSync(cli) && statSync(cli).mtimeMs > newestSourceMtime(path.join(ROOT, 'src', 'engine'))) return cli;
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [tsc, 'src/engine/cli.ts', '--outDir', outDir, '--rootDir', '.', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--target', 'es2023', '--skipLibCheck', '--esModuleInterop', '--types', 'node'];
  // Emits even when some file has a type error elsewhere; the run below is what matters.
  spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  if (!existsSync(cli)) throw new Error(`building ${cli} failed`);
  return cli;
}

function newestSourceMtime(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .reduce((newest, file) => Math.max(newest, statSync(path.join(dir, file)).mtimeMs), 0);
}

export interface EngineProcess {
  child: ChildProcess;
  uri: string;
}

/** Starts `cli.js --port 0 --dbpath <dbPath>` and resolves with the URI it prints. */
export function startEngineProcess(cli: string, dbPath: string): Promise<EngineProcess> {
  const child = spawn(process.execPath, [cli, '--port', '0', '--dbpath', dbPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const uri = /mongodb:\/\/\S+/.exec(output)?.[0];
      if (uri) {
        child.stdout!.off('data', onData);
        resolve({ child, uri });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`engine exited with ${code} before listening: ${output}`)));
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
