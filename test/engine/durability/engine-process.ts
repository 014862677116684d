import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { buildEngineTree } from '../../support/test-build.js';

export { exited } from '../../support/child-process.js';

/**
 * The engine as a child process, built from the current sources: only the
 * engine's import graph is compiled, so the test does not depend on the rest
 * of the project compiling. One build for every engine test (buildEngineTree).
 */
export function buildEngineCli(): string {
  return path.join(buildEngineTree(), 'src', 'engine', 'cli.js');
}

export interface EngineProcess {
  child: ChildProcess;
  uri: string;
  /** The port it listens on: a restart after a crash can take it again. */
  port: number;
  /** Everything it wrote so far, stdout and stderr (for a failing test's message). */
  output(): string;
}

/**
 * Starts `cli.js --port <port> --dbpath <dbPath>` and resolves with the URI it
 * prints; `wrapper` runs it inside another command (e.g. `unshare ...`).
 */
export function startEngineProcess(cli: string, dbPath: string, port = 0, wrapper: readonly string[] = []): Promise<EngineProcess> {
  const command = [...wrapper, process.execPath, cli, '--port', String(port), '--dbpath', dbPath];
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    let listening = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const uri = /mongodb:\/\/\S+/.exec(output)?.[0];
      if (uri && !listening) {
        listening = true;
        resolve({ child, uri, port: Number(new URL(uri).port), output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`engine exited with ${code} before listening: ${output}`)));
  });
}
