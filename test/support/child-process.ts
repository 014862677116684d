import { spawn, type ChildProcess } from 'node:child_process';

/** Helpers for tests that run a built entry point as a child process of the same Node. */

/** Resolves with the exit code (null when a signal ended it), at once if it already ended. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface NodeRunOptions {
  /** The whole environment of the child (nothing is inherited). */
  env: Record<string, string>;
  cwd?: string;
  /** Written to the child's stdin, which then ends; without it the child gets no stdin. */
  input?: string;
}

/** Runs `node <script> <args>` to its end and collects what it printed. */
export async function runNode(script: string, args: string[], { env, cwd, input }: NodeRunOptions): Promise<NodeRun> {
  const child = spawn(process.execPath, [script, ...args], { env, cwd, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    // 'close' (not 'exit'): every byte written to the pipes has been read.
    child.once('close', (exitCode) => resolve(exitCode));
  });
  return { code, stdout, stderr };
}
