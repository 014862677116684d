import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openLmdbStorage } from '../../../src/engine/storage/index.js';
import { tempDir } from './storage-kinds.js';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

/**
 * Runs the writer child (plain node + the SWC loader, no build step) with
 * `writers` inserting side by side until it has acknowledged `acks` inserts,
 * SIGKILLs it and returns every index it acknowledged.
 */
async function writeThenKill(dbPath: string, acks: number, writers = 1): Promise<number[]> {
  const child = spawn(
    process.execPath,
    ['--import', join(fixtures, 'ts-loader.mjs'), join(fixtures, 'lmdb-ack-writer.mjs'), dbPath, String(writers)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const acked: number[] = [];
  let buffered = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const m = /^ACK (\d+)$/.exec(line);
        if (m) acked.push(Number(m[1]));
      }
      if (acked.length >= acks && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`writer exited without being killed: ${stderr}`));
    });
  });
}

describe('lmdb storage: durability', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['one writer', 1],
    ['8 writers side by side (writes grouped while the log syncs)', 8],
  ])('keeps every acknowledged insert after the writer is SIGKILLed mid-stream, and reopens cleanly: %s', async (_name, writers) => {
    dir = tempDir('storage-kill-');
    const dbPath = join(dir, 'engine.mdb');
    const acked = await writeThenKill(dbPath, 300, writers);
    expect(acked.length).toBeGreaterThanOrEqual(300);

    const storage = openLmdbStorage(dbPath);
    try {
      for (const i of acked) expect(storage.findById('app', 'acks', i), `acknowledged doc ${i}`).toBeDefined();
      // Writes still work on the recovered files.
      storage.insert('app', 'acks', { _id: 'after-crash' });
      await storage.flush();
      expect(storage.findById('app', 'acks', 'after-crash')).toBeDefined();
    } finally {
      await storage.close();
    }
  });
});
