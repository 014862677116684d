import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A small tmpfs of its own (root only), for tests of a full disk: filled to
 * a few bytes from full with one filler file, and freed again by removing it.
 */
export interface SmallDisk {
  dir: string;
  /** Fills the disk with the filler file, leaving about `leaveBytes` free. */
  fill(leaveBytes: number): void;
  /** Removes the filler file: the space comes back. */
  free(): void;
  /** Unmounts and removes the mount point (call it in afterAll, also after a failure). */
  unmount(): void;
}

const FILLER = 'filler';
const CHUNK = Buffer.alloc(64 * 1024);

/** A mounted small disk, or why there is none (not root, or mounting is not permitted here). */
export function mountSmallDisk(sizeKiB: number): SmallDisk | string {
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return `mounting a tmpfs is not permitted here: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
  const filler = path.join(dir, FILLER);
  let mounted = true;
  return {
    dir,
    fill(leaveBytes) {
      try {
        for (;;) appendFileSync(filler, CHUNK);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
      truncateSync(filler, Math.max(0, statSync(filler).size - leaveBytes));
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      if (!mounted) return;
      mounted = false;
      try {
        execFileSync('umount', [dir], { stdio: 'pipe' });
      } catch {
        // Still busy (a process the test failed to stop): detach it now, gone once unused.
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
