import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The engine as `npm run engine` runs it: its own process (so its own core),
 * reached over loopback. The bench runs from dist/bench, beside dist/src.
 */
export async function startStandaloneEngine(dbPath: string): Promise<{ uri: string; port: number; pid: number; close(): Promise<void> }> {
  const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/engine/cli.js');
  const child = spawn(process.execPath, [cli, '--port', '0', '--dbpath', dbPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  const uri = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /mongodb:\/\/[^\s]+/.exec(out);
      if (match) resolve(match[0]);
    });
    child.once('exit', (code) => reject(new Error(`standalone engine exited with ${code} before listening`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    uri,
    port: Number(new URL(uri).port),
    pid: child.pid!,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
