import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * One engine per dbPath, as mongod's mongod.lock ensures: each engine keeps
 * its data in memory, so two of them on the same files would overwrite each
 * other's writes. The lock file holds the owner's pid; a lock left by a
 * process that no longer runs (kill -9) is taken over.
 */
export interface DbPathLock {
  release(): void;
}

const LOCK_FILE = 'engine.lock';

export function lockDbPath(dbPath: string): DbPathLock {
  const file = path.join(dbPath, LOCK_FILE);
  const holder = readHolder(file);
  if (holder !== undefined && isRunning(holder)) {
    throw new Error(`dbPath ${dbPath} is in use by process ${holder} (remove ${file} if that process is not an engine)`);
  }
  writeFileSync(file, `${process.pid}\n`);
  return { release: () => rmSync(file, { force: true }) };
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
