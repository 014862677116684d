import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { AppConfig } from '../config.js';
import type { Logger } from '../logger.js';

/**
 * Caps on open client connections, so that many held-open connections are
 * refused at the door (closed as accepted) instead of taking the file
 * descriptors the database and its files need (issue 27, item 7: with
 * ~20,000 held open, every write failed with EMFILE). The total defaults to
 * the process's open-file limit less a reserve; one client IP may hold at
 * most `maxConnectionsPerIp` of them.
 */
export function limitConnections(server: Server, limits: AppConfig['http'], logger: Logger): void {
  const total = limits.maxConnections ?? connectionsWithin(openFilesLimit());
  if (total !== undefined) server.maxConnections = total;
  server.on('drop', (data?: { remoteAddress?: string }) => refused(logger, 'the server holds its most connections', data?.remoteAddress));

  const perIp = limits.maxConnectionsPerIp;
  if (perIp === 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? '';
    const count = (open.get(ip) ?? 0) + 1;
    if (count > perIp) {
      refused(logger, 'its client IP holds its most connections', ip);
      socket.destroy();
      return;
    }
    open.set(ip, count);
    socket.once('close', () => {
      const left = open.get(ip)! - 1;
      if (left === 0) open.delete(ip);
      else open.set(ip, left);
    });
  });
}

/**
 * Descriptors kept for all but client connections: the database driver's
 * pool (100 connections, two descriptors each on the embedded engine's
 * socket: both ends are in this process) and the engine's files, log
 * segments and the process's own.
 */
export const RESERVED_DESCRIPTORS = 2 * 100 + 64;

/** Client connections that fit in `limit` descriptors beside the reserve (a quarter of it at least); none known: no cap. */
export function connectionsWithin(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  return Math.max(limit - RESERVED_DESCRIPTORS, Math.floor(limit / 4));
}

/** The soft RLIMIT_NOFILE of this process (Linux /proc), or undefined when unlimited or unknown. */
export function openFilesLimit(limitsText = readProcLimits()): number | undefined {
  const soft = /^Max open files\s+(\S+)/m.exec(limitsText ?? '')?.[1];
  return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
}

function readProcLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

/** Refusals are logged at most once a second: a flood of them must not become a flood of log lines. */
let lastRefusalLog = 0;
function refused(logger: Logger, reason: string, remoteAddress: string | undefined): void {
  const now = Date.now();
  if (now - lastRefusalLog < 1_000) return;
  lastRefusalLog = now;
  logger.warn({ remoteAddress }, `connection refused: ${reason}`);
}
