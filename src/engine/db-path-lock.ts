import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * One engine per dbPath, as mongod's mongod.lock ensures: each engine keeps
 * its data in memory, so two of them on the same files would overwrite each
 * other's writes. The lock file holds the owner's pid and, where /proc tells
 * it, the process's start time; a lock left by a process that no longer runs
 * (kill -9) is taken over. So is one naming our own pid that this process did
 * not take: an earlier process had our id (as PID 1 of a container does on
 * every start) and died holding it. The start time tells this process from
 * that earlier one across worker threads too (an engine may run in one):
 * each thread has its own module state, so `heldHere` alone would let a
 * second thread take the files of a first.
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
  const self = ownStartTime();
  const held =
    holder?.pid === process.pid
      ? heldHere.has(file) || (self !== undefined && holder.startTime === self)
      : holder !== undefined && isRunning(holder.pid);
  if (held) {
    throw new Error(`dbPath ${dbPath} is in use by process ${holder!.pid} (remove ${file} if that process is not an engine)`);
  }
  writeFileSync(file, self === undefined ? `${process.pid}\n` : `${process.pid}\n${self}\n`);
  heldHere.add(file);
  return {
    release: () => {
      heldHere.delete(file);
      rmSync(file, { force: true });
    },
  };
}

function readHolder(file: string): { pid: number; startTime?: string } | undefined {
  try {
    const [pidLine, startTime] = readFileSync(file, 'utf8').split('\n');
    const pid = Number.parseInt(pidLine!, 10);
    return Number.isInteger(pid) && pid > 0 ? { pid, startTime: startTime || undefined } : undefined;
  } catch {
    return undefined;
  }
}

/** This process's start time in clock ticks since boot (/proc/self/stat's 22nd field), the same in every thread; undefined without /proc. */
function ownStartTime(): string | undefined {
  try {
    // The command name (2nd field, in parentheses) may hold spaces: count from after it.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
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
