import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import { hashPassword, signAccessToken } from '../src/auth/index.js';
import { loadConfig } from '../src/config.js';
import { connectMongoose } from '../src/database.js';
import { startEngine } from '../src/engine/index.js';
import { buildServiceSchema, createService } from '../src/service.js';
import { UserModel } from '../src/users/index.js';
import { pairedMedianLatencyUs } from './measure.js';

/**
 * (d, sessions) Sign-in sessions against the plain JWT read, in-process on the
 * in-memory engine, sequential, in alternation:
 * - `GET /restaurant/meal-menus/{id}` with a token of a session (claim `sid`:
 *   its session's state is read at most once a second) against the same read
 *   with a token of no session (the CLI's): ratio session / plain, the
 *   promise is at most 1.05;
 * - `POST /auth/refresh` (one conditional write, a new token pair; each call
 *   spends the token the previous one answered) against the plain read:
 *   ratio plain read / refresh.
 */
export async function sessionsVsJwt(iterations = 2000) {
  const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' });
  const engine = await startEngine({ inMemory: true, port: 0 });
  await connectMongoose(engine.uri, 'bench_sessions');
  const handle = await createService(config, await buildServiceSchema());
  const server = handle.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  try {
    const password = 'Bench-Passw0rd';
    const user = await UserModel.create({ email: 'sessions@example.test', passwordHash: await hashPassword(password), firstName: 'Bench', roles: ['admin'], tenant_id: 'bench' });
    const plainToken = signAccessToken(config.jwt, { sub: String(user._id), tenant: 'bench', roles: ['admin'], ver: 0 }).accessToken;
    const post = async (path: string, body: unknown, token?: string) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (token) headers.authorization = `Bearer ${token}`;
      const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (response.status >= 300) throw new Error(`${path} answered ${response.status}`);
      return response.json();
    };
    const signedIn = (await post('/auth/login', { email: 'sessions@example.test', password, tenantId: 'bench' })) as { accessToken: string; refreshToken: string };
    const menu = await post('/restaurant/meal-menus', { name: 'Bench lunch', date: '2026-01-01', mealType: 'lunch' }, plainToken);
    const read = (token: string) => async () => {
      const response = await fetch(`${base}/restaurant/meal-menus/${menu.id}`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`read answered ${response.status}`);
      await response.arrayBuffer();
    };
    let refreshToken = signedIn.refreshToken;
    const refresh = async () => {
      refreshToken = ((await post('/auth/refresh', { refreshToken })) as { refreshToken: string }).refreshToken;
    };
    const [plainUs, sessionUs] = await pairedMedianLatencyUs(read(plainToken), read(signedIn.accessToken), { iterations });
    const [plainReadUs, refreshUs] = await pairedMedianLatencyUs(read(plainToken), refresh, { iterations });
    return {
      read: { plainUs, sessionUs, ratio: sessionUs / plainUs },
      refresh: { plainUs: plainReadUs, refreshUs, ratio: plainReadUs / refreshUs },
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await handle.stop();
    await mongoose.disconnect();
    await engine.close();
  }
}
