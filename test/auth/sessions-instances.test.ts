import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_STATE_MAX_AGE_MS } from '../../src/auth/index.js';
import { callService as call, startInstancesOnEngine, type InstancesOnEngine, type ServiceProcess } from '../support/service-process.js';

/**
 * Sessions live in the database, so every instance agrees on them. Two
 * instances on one engine: a spent refresh token presented to the other
 * instance ends the session on both; a session ended through one is refused
 * by the other within a second (its cached session state's bound).
 */

const ADMIN = { email: 'sessions-admin@example.com', password: `S3ssion-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');

let instances: InstancesOnEngine;
let first: ServiceProcess;
let second: ServiceProcess;

async function signIn(service: ServiceProcess): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await call(service, 'POST', '/api/v1/auth/login', { body: ADMIN });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

const refresh = (service: ServiceProcess, refreshToken: string) => call(service, 'POST', '/api/v1/auth/refresh', { body: { refreshToken } });
const readMe = (service: ServiceProcess, token: string) => call(service, 'GET', '/api/v1/auth/me', { token });
const sidOf = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).sid as string;

beforeAll(async () => {
  instances = await startInstancesOnEngine({ name: 'sessions-instances', database: 'sessions_db', admin: ADMIN, jwtSecret: JWT_SECRET, oneAfterAnother: true });
  [first, second] = instances.services as [ServiceProcess, ServiceProcess];
}, 180_000);

afterAll(() => instances?.close());

describe('a session seen by two instances', () => {
  it('a refresh token spent on the first and presented to the second ends the session on both', async () => {
    const signedIn = await signIn(first);
    const rotated = await refresh(first, signedIn.refreshToken);
    expect(rotated.status).toBe(200);
    // Both instances hold the session as live.
    expect([(await readMe(first, rotated.body.accessToken)).status, (await readMe(second, rotated.body.accessToken)).status]).toEqual([200, 200]);

    const reused = await refresh(second, signedIn.refreshToken);
    expect([reused.status, reused.body.detail]).toEqual([401, 'Refresh token already used: the session is ended']);
    // The instance that saw the reuse refuses at once; the other within a second.
    expect((await readMe(second, rotated.body.accessToken)).status).toBe(401);
    await sleep(SESSION_STATE_MAX_AGE_MS + 50);
    expect((await readMe(first, rotated.body.accessToken)).status).toBe(401);
    // The current refresh token died with the session, on either instance.
    expect((await refresh(first, rotated.body.refreshToken)).status).toBe(401);
  });

  it('a session ended through one instance is refused by the other within a second', async () => {
    const [ending, ended] = [await signIn(first), await signIn(first)];
    expect((await readMe(second, ended.accessToken)).status).toBe(200);
    const answer = await call(first, 'DELETE', `/api/v1/auth/sessions/${sidOf(ended.accessToken)}`, { token: ending.accessToken });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await readMe(first, ended.accessToken)).status).toBe(401);
    await sleep(SESSION_STATE_MAX_AGE_MS + 50);
    expect((await readMe(second, ended.accessToken)).status).toBe(401);
    expect((await readMe(second, ending.accessToken)).status).toBe(200);
  });
});
