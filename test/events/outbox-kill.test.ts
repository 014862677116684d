import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited } from '../support/child-process.js';
import { buildService, callService, defaultModeEnv, startService, stopService, type ServiceBuild, type ServiceProcess } from '../support/service-process.js';

/**
 * The outbox under SIGKILL (docs/events.md "The event model"): a service
 * process (embedded engine, EVENT_PENDING_GRACE=1s) under a stream of audited
 * mutations of several kinds (a menu created, updated and soft-deleted; a
 * role created and hard-deleted) is killed mid-stream and restarted. Once the
 * reconciler has run, every change in the database has its committed event
 * and every committed event's change is in the database; the counts, and how
 * many pending events the reconciler settled, are printed.
 */

const ADMIN = { email: 'outbox-admin@example.com', password: `Outb0x-${randomBytes(6).toString('hex')}!` };
const TENANT = 'tenant-outbox-kill';
const WORKERS = 16;

let build: ServiceBuild;
let workDir: string;
let service: ServiceProcess | undefined;
let env: Record<string, string>;

beforeAll(() => {
  build = buildService();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'outbox-kill-'));
  env = defaultModeEnv(path.join(workDir, 'data'), ADMIN, { EVENT_PENDING_GRACE: '1s' });
}, 180_000);

afterAll(async () => {
  if (service) await stopService(service);
  rmSync(workDir, { recursive: true, force: true });
});

type Call = (method: string, urlPath: string, body?: unknown) => Promise<{ status: number; body: any }>;
const callerOf = (running: ServiceProcess, token: string): Call => (method, urlPath, body) => callService(running, method, `/api/v1${urlPath}`, { body, token });

/** One worker's loop of audited mutations until stopped (a failed call ends it: the process is gone). */
async function mutate(call: Call, worker: number, running: { on: boolean }): Promise<void> {
  for (let i = 0; running.on; i++) {
    const tag = `w${worker}-${i}`;
    const menu = await call('POST', '/restaurant/meal-menus', { name: `menu-${tag}`, date: '2026-05-06', mealType: 'snack', tenant_id: TENANT });
    if (menu.status !== 201) return;
    await call('PATCH', `/restaurant/meal-menus/${menu.body.id}/estimated-portions/77`);
    if (i % 2 === 0) await call('DELETE', `/restaurant/meal-menus/${menu.body.id}`);
    const role = await call('POST', '/access-control/roles', { name: `role-${tag}`, permissions: ['menus:read'], tenant_id: TENANT });
    if (role.status === 201 && i % 2 === 1) await call('DELETE', `/access-control/roles/${role.body.id}`);
  }
}

/** Every page of a list. */
async function all(call: Call, urlPath: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const joiner = urlPath.includes('?') ? '&' : '?';
    const page = await call('GET', `${urlPath}${joiner}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    items.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

/** What the database holds against what the events say: each list of mismatches should be empty. */
async function compare(call: Call) {
  const menus = (await all(call, '/restaurant/meal-menus?includeDeleted=true')).filter((m) => m.name.startsWith('menu-'));
  const roles = (await all(call, '/access-control/roles')).filter((r) => String(r.name).startsWith('role-'));
  const events = await all(call, '/events');
  const of = (type: string) => new Set(events.filter((e) => e.type === type).map((e) => e.target.id as string));
  const [menuCreated, menuUpdated, menuDeleted, roleCreated, roleDeleted] = ['menus.create', 'menus.update', 'menus.delete', 'roles.create', 'roles.delete'].map(of);
  const menuById = new Map(menus.map((m) => [m.id as string, m]));
  const roleIds = new Set(roles.map((r) => r.id as string));
  const changesWithoutEvent = [
    ...menus.filter((m) => !menuCreated!.has(m.id)).map((m) => `create ${m.id}`),
    ...menus.filter((m) => m.estimatedPortions === 77 && !menuUpdated!.has(m.id)).map((m) => `update ${m.id}`),
    ...menus.filter((m) => m.deletedAt !== null && !menuDeleted!.has(m.id)).map((m) => `delete ${m.id}`),
    ...roles.filter((r) => !roleCreated!.has(r.id)).map((r) => `role create ${r.id}`),
  ];
  const eventsWithoutChange = [
    ...[...menuCreated!].filter((id) => !menuById.has(id)).map((id) => `menus.create ${id}`),
    ...[...menuUpdated!].filter((id) => menuById.get(id)?.estimatedPortions !== 77).map((id) => `menus.update ${id}`),
    ...[...menuDeleted!].filter((id) => !menuById.get(id)?.deletedAt).map((id) => `menus.delete ${id}`),
    ...[...roleCreated!].filter((id) => !roleIds.has(id) && !roleDeleted!.has(id)).map((id) => `roles.create ${id}`),
    ...[...roleDeleted!].filter((id) => roleIds.has(id) || !roleCreated!.has(id)).map((id) => `roles.delete ${id}`),
  ];
  return { changesWithoutEvent, eventsWithoutChange, counts: { menus: menus.length, roles: roles.length, events: events.length } };
}

describe('the outbox under SIGKILL', () => {
  it('after a kill mid-stream and a restart, every change has its event and every event its change', async () => {
    service = await startService(build.index, env, workDir);
    const login = await callService(service, 'POST', '/api/v1/auth/login', { body: ADMIN });
    expect(login.status).toBe(200);
    const token = String(login.body.accessToken);
    const call = callerOf(service, token);

    const running = { on: true };
    const workers = Array.from({ length: WORKERS }, (_, worker) => mutate(call, worker, running).catch(() => undefined));
    // Mid-stream: once a good number of changes are in.
    const deadline = Date.now() + 30_000;
    while ((await all(call, '/events')).length < 60 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    service.child.kill('SIGKILL');
    await exited(service.child);
    running.on = false;
    await Promise.all(workers);

    service = await startService(build.index, env, workDir);
    const again = callerOf(service, token);
    let result = await compare(again);
    const settleBy = Date.now() + 15_000;
    while ((result.changesWithoutEvent.length > 0 || result.eventsWithoutChange.length > 0) && Date.now() < settleBy) {
      await new Promise((r) => setTimeout(r, 250));
      result = await compare(again);
    }
    // One more reconciler interval: nothing left pending settles late.
    await new Promise((r) => setTimeout(r, 1500));
    result = await compare(again);
    const reconciled = [...service.output().matchAll(/"reconciled":(\{[^}]*\})/g)].map((m) => JSON.parse(m[1]!));
    console.info(`outbox-kill: ${JSON.stringify(result.counts)}, settled by the reconciler: ${JSON.stringify(reconciled)}`);
    expect(result.changesWithoutEvent).toEqual([]);
    expect(result.eventsWithoutChange).toEqual([]);
    expect(await stopService(service)).toBe(0);
    service = undefined;
  }, 120_000);
});
