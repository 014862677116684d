import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Where the engine's unix domain socket lives, and making that place private:
 * the engine has no authentication, so the file's permissions are the only
 * gate. The socket file is 0600 (set by the wire server) inside a directory
 * only this user can enter (0700), so no other local user can connect.
 */

/** The driver takes a host ending in `.sock` for a socket path (mongodb/lib/utils.js HostAddress). */
export const SOCKET_SUFFIX = '.sock';
/** Default file name, inside <dbPath>/socket/ or a private temp directory. */
const SOCKET_FILE = 'engine.sock';
const SOCKET_DIR = 'socket';
/** sun_path holds 108 bytes on Linux, 104 on macOS and the BSDs, NUL included. */
export const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

export interface SocketOptions {
  /**
   * The socket file (must end with `.sock`). Its directory is created 0700, or
   * must already belong to this user and be closed to group and others.
   * Without it: <dbPath>/socket/engine.sock, or a fresh private directory under
   * the OS temp dir when that path is too long for a socket (or in memory).
   */
  path?: string;
}

export interface ClaimedSocketPath {
  path: string;
  /** Removes the socket file, and the directory when it was a temporary one. */
  release(): void;
}

export class SocketPathError extends Error {}

/** Picks the socket path, makes its directory private and clears a stale socket left by a killed engine. */
export async function claimSocketPath(options: SocketOptions, dbPath: string | undefined): Promise<ClaimedSocketPath> {
  if (options.path !== undefined) {
    const file = path.resolve(options.path);
    checkSocketPath(file);
    ensurePrivateDir(path.dirname(file), { adopt: false });
    await clearStaleSocket(file);
    return { path: file, release: () => rmSync(file, { force: true }) };
  }
  const underDbPath = dbPath === undefined ? undefined : path.resolve(dbPath, SOCKET_DIR, SOCKET_FILE);
  if (underDbPath !== undefined && fitsSunPath(underDbPath)) {
    ensurePrivateDir(path.dirname(underDbPath), { adopt: true });
    await clearStaleSocket(underDbPath);
    return { path: underDbPath, release: () => rmSync(underDbPath, { force: true }) };
  }
  // mkdtemp creates the directory 0700 with an unguessable name: nothing stale to clear.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'engine-'));
  const file = path.join(dir, SOCKET_FILE);
  if (!fitsSunPath(file)) {
    rmSync(dir, { recursive: true, force: true });
    throw new SocketPathError(`no socket path short enough: ${file} is longer than ${MAX_SOCKET_PATH_BYTES} bytes (set TMPDIR to a shorter directory)`);
  }
  return { path: file, release: () => rmSync(dir, { recursive: true, force: true }) };
}

function fitsSunPath(file: string): boolean {
  return Buffer.byteLength(file) <= MAX_SOCKET_PATH_BYTES;
}

function checkSocketPath(file: string): void {
  if (!file.endsWith(SOCKET_SUFFIX)) {
    throw new SocketPathError(`socket path ${file} must end with ${SOCKET_SUFFIX} (the MongoDB driver recognises a socket by it)`);
  }
  if (!fitsSunPath(file)) {
    throw new SocketPathError(`socket path ${file} is ${Buffer.byteLength(file)} bytes; a unix socket path holds at most ${MAX_SOCKET_PATH_BYTES}`);
  }
}

/**
 * Creates `dir` 0700, or checks an existing one: it must be ours; group or
 * other access is fixed when the directory is the engine's own (`adopt`) and
 * refused otherwise (never chmod a directory the caller merely named).
 */
function ensurePrivateDir(dir: string, { adopt }: { adopt: boolean }): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if (!stat.isDirectory()) throw new SocketPathError(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new SocketPathError(`socket directory ${dir} belongs to uid ${stat.uid}, not to this user (${uid})`);
  }
  if ((stat.mode & 0o077) === 0) return;
  if (!adopt) {
    throw new SocketPathError(
      `socket directory ${dir} is open to other users (mode ${(stat.mode & 0o777).toString(8)}); use a directory with mode 700`,
    );
  }
  // recursive mkdir leaves an existing directory's mode alone.
  chmodSync(dir, 0o700);
}

/**
 * A socket file outlives a killed engine and makes listen() fail with
 * EADDRINUSE. Removed only when nothing answers on it; a live server there, or
 * a file that is not a socket, is an error.
 */
async function clearStaleSocket(file: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(file).isSocket();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!isSocket) throw new SocketPathError(`${file} exists and is not a socket; remove it or choose another path`);
  if (await answers(file)) throw new SocketPathError(`socket ${file} is in use by another server`);
  rmSync(file, { force: true });
}

function answers(file: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.connect(file);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', (err: NodeJS.ErrnoException) => {
      probe.destroy();
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(false);
      else reject(err);
    });
  });
}
