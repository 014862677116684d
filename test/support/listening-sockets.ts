import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The TCP ports a process listens on, read from /proc (Linux): its open
 * socket inodes matched against the LISTEN rows of /proc/<pid>/net/tcp{,6}.
 * Undefined where /proc is missing, so callers can skip rather than pass.
 */
const LISTEN_STATE = '0A';

export function listeningTcpPorts(pid: number | 'self' = 'self'): number[] | undefined {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  const inodes = new Set<string>();
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // Closed between readdir and readlink.
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let rows: string[];
    try {
      rows = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    } catch {
      continue;
    }
    for (const row of rows) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = row.trim().split(/\s+/);
      const [, local, , state] = fields;
      if (state === LISTEN_STATE && inodes.has(fields[9]!)) ports.add(Number.parseInt(local!.split(':').pop()!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}
