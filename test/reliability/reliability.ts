import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

/**
 * What the reliability proofs share: the short/long switch and its knobs, a
 * seeded random source, REST calls that never throw, and process facts read
 * from /proc. The standalone engine process is the engine tests' one
 * (test/engine/durability/engine-process.ts).
 *
 * `npm test` runs the short version of each proof; `npm run test:reliability`
 * sets RELIABILITY=long. Each knob can also be set on its own.
 */
export const LONG = process.env.RELIABILITY === 'long';

/** A positive integer from the environment, else the default of the current mode. */
export function knob(name: string, short: number, long: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return LONG ? long : short;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** mulberry32: small and seedable, so a failing run can be replayed with RELIABILITY_SEED. */
export function seededRandom(label: string): { seed: number; next: () => number; between: (min: number, max: number) => number } {
  const seed = process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : randomBytes(4).readUInt32LE();
  console.info(`${label}: RELIABILITY_SEED=${seed}`);
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, next, between: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An answer, or `undefined` when no answer came (refused or reset connection: the request is in doubt). */
export interface Answer {
  status: number;
  body: any;
}

/** One JSON call that resolves without an answer instead of throwing when the connection fails. */
export async function tryCall(baseUrl: string, method: string, urlPath: string, options: { body?: unknown; token?: string } = {}): Promise<Answer | undefined> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  try {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, body: /json/.test(response.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text };
  } catch {
    return undefined;
  }
}

/** Payloads of the two writes the proofs make: a menu and a user (the user costs an Argon2 hash). */
/** Signs in through the REST login; the access token and the signed-in user's id. */
export async function signIn(baseUrl: string, admin: { email: string; password: string }): Promise<{ token: string; adminId: string }> {
  const login = await tryCall(baseUrl, 'POST', '/api/v1/auth/login', { body: admin });
  if (login?.status !== 200) throw new Error(`sign-in answered ${login?.status ?? 'nothing'}`);
  const token = String(login.body.accessToken);
  const me = await tryCall(baseUrl, 'GET', '/api/v1/auth/me', { token });
  return { token, adminId: String(me!.body.id) };
}

export function menuBody(tag: string) {
  return { name: `Menu ${tag}`, date: '2026-04-01', mealType: 'lunch', estimatedPortions: 10, tenant_id: 'tenant-reliability' };
}

export function userBody(email: string, adminId: string) {
  return {
    email,
    password: 'Rel1able-Passw0rd!',
    firstName: 'Reli',
    roles: ['member'],
    tenant_id: 'tenant-reliability',
    createdBy: adminId,
    updatedBy: adminId,
  };
}

/** Resident memory of a process in KiB (Linux /proc), undefined once it is gone. */
export function residentKiB(pid: number): number | undefined {
  try {
    const line = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Pids of this user's processes whose environment holds `NAME=value`: a
 * unique DATA_DIR finds every process of one `npm start` (npm, the shell,
 * node), whoever its parent is now.
 */
export function processesWithEnv(name: string, value: string): number[] {
  const wanted = `${name}=${value}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(wanted);
      } catch {
        return false; // gone, or another user's
      }
    })
    .map(Number);
}

/** Whether a TCP connection to 127.0.0.1:port is refused. */
export function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** Lines of a pino log at warn level or above, by message: what a start-up complained about. */
export function warnings(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as { level?: number; msg?: string };
      } catch {
        return {};
      }
    })
    .filter((entry) => (entry.level ?? 0) >= 40)
    .map((entry) => entry.msg ?? '');
}
