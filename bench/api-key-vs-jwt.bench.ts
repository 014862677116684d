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

/** One `POST /api-keys/verify` of `secret` by the JWT's user; anything but VALID stops the bench (it would measure a refusal). */
function verify(base: string, accessToken: string, secret: string) {
  const body = JSON.stringify({ key: secret });
  return async () => {
    const response = await fetch(`${base}/api-keys/verify`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body });
    const answer = (await response.json()) as { code?: string };
    if (response.status !== 200 || answer.code !== 'VALID') throw new Error(`verify answered ${response.status} ${answer.code}`);
  };
}

/**
 * (d) A key-authenticated read against the same read with a JWT: the service
 * in-process on the in-memory engine, `GET /restaurant/meal-menus/{id}`
 * sequentially, the two credentials in alternation. The key's extra cost is
 * one atomic update (secret, state and rate window) and no write of its own:
 * its usage is batched. Ratio = JWT time / key time (higher is better).
 * Then verifyApiKey (the same check of the key, called by a JWT user, audited)
 * against the same JWT read, alternating: ratio JWT read time / verify time.
 */
export async function apiKeyVsJwt(iterations = 2000) {
  const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' });
  const engine = await startEngine({ inMemory: true, port: 0 });
  await connectMongoose(engine.uri, 'bench_service');
  const handle = await createService(config, await buildServiceSchema());
  const server = handle.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  try {
    const user = await UserModel.create({ email: 'bench@example.test', passwordHash: await hashPassword('Bench-Passw0rd'), firstName: 'Bench', roles: ['admin'], tenant_id: 'bench' });
    const { accessToken } = signAccessToken(config.jwt, { sub: String(user._id), tenant: 'bench', roles: ['admin'], ver: 0 });
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return response.json();
    };
    const menu = await post('/restaurant/meal-menus', { name: 'Bench lunch', date: '2026-01-01', mealType: 'lunch' });
    const key = await post('/api-keys', { name: 'bench', scopes: ['menus:read'], rateLimit: 1_000_000 });
    const read = (authorization: string) => async () => {
      const response = await fetch(`${base}/restaurant/meal-menus/${menu.id}`, { headers: { authorization } });
      if (response.status !== 200) throw new Error(`read answered ${response.status}`);
      await response.arrayBuffer();
    };
    const [jwtUs, keyUs] = await pairedMedianLatencyUs(read(`Bearer ${accessToken}`), read(`Bearer ${key.key}`), { iterations });
    const [jwtReadUs, verifyUs] = await pairedMedianLatencyUs(read(`Bearer ${accessToken}`), verify(base, accessToken, key.key), { iterations });
    return { jwtUs, keyUs, ratio: jwtUs / keyUs, verify: { jwtUs: jwtReadUs, verifyUs, ratio: jwtReadUs / verifyUs } };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await handle.stop();
    await mongoose.disconnect();
    await engine.close();
  }
}
