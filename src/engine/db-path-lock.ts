import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * One engine per dbPath, as mongod's mongod.lock ensures: each engine keeps
 * its data in memory, so two of them on the same files would overwrite each
 * other's writes. The lock file holds the owner's pid; a lock left by a
 * process that no longer runs (kill -9) is taken over. So is one naming our
 * own pid that this process did not take: an earlier process had our id (as
 * PID 1 of a container does on every start) and died holding it.
 */
export interface DbPathLock {
  release(): void;
}

const LOCK_FILE = 'engine.lock';

/** The lock files this process holds: only those make our own pid a live holder. */
const heldHere = new Set<string>();

export function lockDbPath(dbPath: string): DbPathLock {
  const file = path.resolve(dbPath, LOCK_FILE);
  const holder = readHolder(file);
  const held = holder === process.pid ? heldHere.has(file) : holder !== undefined && isRunning(holder);
  if (held) {
    throw new Error(`dbPath ${dbPath} is in use by process ${holder} (remove ${file} if that process is not an engine)`);
  }
  writeFileSync(file, `${process.pid}\n`);
  heldHere.add(file);
  return {
    release: () => {
      heldHere.delete(file);
      rmSync(file, { force: true });
    },
  };
}

function readHolder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
