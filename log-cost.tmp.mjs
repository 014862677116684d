// Temporary: REST read throughput at LOG_LEVEL=info vs warn, service in its own process (default mode).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const level = process.argv[2] ?? 'info';
const prof = process.argv[3] === 'prof';
const seconds = Number(process.argv[4] ?? 8);
const port = 4300 + Math.floor(Math.random() * 500);
const dir = mkdtempSync(path.join(os.tmpdir(), 'logcost-'));
const args = [...(prof ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-log'] : []), 'dist/src/index.js'];
const child = spawn(process.execPath, args, {
  env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dir, JWT_SECRET: 'x'.repeat(40), LOG_LEVEL: level, ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'Adm1nPassw0rd!' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 200; i++) { try { if ((await fetch(`${base}/readyz`)).ok) break; } catch {} await new Promise((r) => setTimeout(r, 100)); }
const login = await (await fetch(`${base}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'Adm1nPassw0rd!' }) })).json();
const auth = { authorization: `Bearer ${login.accessToken}`, 'content-type': 'application/json' };
const menu = await (await fetch(`${base}/api/v1/restaurant/meal-menus`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Lunch', date: '2030-01-01', mealType: 'lunch', tenant_id: 'acme' }) })).json();
const url = `${base}/api/v1/restaurant/meal-menus/${menu.id}`;
await autocannon({ url, headers: auth, connections: 20, duration: 2 });
const r = await autocannon({ url, headers: auth, connections: 20, duration: seconds });
console.log(level, 'req/s', r.requests.average, 'p50', r.latency.p50, 'p99', r.latency.p99, 'non2xx', r.non2xx);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });
