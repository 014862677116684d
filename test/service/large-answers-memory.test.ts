import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachInspector, inspectorEnv, type ChildHeap } from '../support/inspector.js';
import { buildService, callService as call, defaultModeEnv, startService, stopService, type ServiceProcess } from '../support/service-process.js';

/**
 * Large answers do not exhaust the service's memory (issue 27, item 10):
 * menus with every field at its largest (some 730 KB each, under the 1 MB
 * body limit), read in bursts of concurrent full pages over REST and of
 * GraphQL requests aliasing the list three times. Each answer is bounded by
 * the request's byte budget, so the resident memory during the burst stays
 * within a small multiple of its level before it (unbounded, a page was all
 * the menus, some 17 MB, and each alias another), and the burst leaves
 * nothing behind: the heap after a full collection is back at its level
 * before. Ratios to levels measured in the same run, never absolute sizes.
 * (Resident memory after the burst is what the allocator chose to keep of
 * the peak, x1.3-1.7 from run to run: no measure of what the service holds.)
 */

const ADMIN = { email: 'admin@example.com', password: `Adm1n-${randomBytes(8).toString('hex')}!` };
const TENANT = 'tenant-large-answers';
const MENUS = 24;
const CONCURRENT = 8;
const ROUNDS = 3;

let workDir: string;
let service: ServiceProcess;
let token: string;
let heap: ChildHeap;

/** A menu with every field at the largest its input allows. */
function largeMenu(index: number) {
  const text = (length: number) => `${index}`.padEnd(length, 'x');
  return {
    name: text(200),
    description: text(2000),
    date: '2026-03-03',
    mealType: 'lunch',
    items: Array.from({ length: 100 }, () => ({ name: text(200), description: text(2000), allergens: Array.from({ length: 50 }, () => text(100)) })),
    estimatedPortions: index,
    tenant_id: TENANT,
  };
}

/** The child's resident memory, in bytes (Linux). */
function residentBytes(): number {
  const status = readFileSync(`/proc/${service.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

const EVERY_FIELD = 'id name description date mealType items { name description allergens } estimatedPortions tenant_id createdBy updatedBy deletedAt createdAt updatedAt';
const aliasedPages = `{ ${['a', 'b', 'c'].map((alias) => `${alias}: mealMenus(limit: 100) { items { ${EVERY_FIELD} } nextCursor }`).join(' ')} }`;

/** One full page over REST, or three aliased pages over GraphQL; the answer read whole. */
async function largeRead(graphql: boolean): Promise<number> {
  const response = graphql
    ? await fetch(`${service.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: aliasedPages }),
      })
    : await fetch(`${service.baseUrl}/api/v1/restaurant/meal-menus?limit=100`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  const build = buildService();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'large-answers-'));
  service = await startService(
    build.index,
    defaultModeEnv(path.join(workDir, 'data'), ADMIN, inspectorEnv()),
    workDir,
  );
  heap = await attachInspector(service);
  token = (await call(service, 'POST', '/api/v1/auth/login', { body: ADMIN })).body.accessToken;
  for (let i = 0; i < MENUS; i += 1) {
    const created = await call(service, 'POST', '/api/v1/restaurant/meal-menus', { body: largeMenu(i), token });
    if (created.status !== 201) throw new Error(`menu ${i}: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
  }
}, 240_000);

afterAll(async () => {
  heap?.close();
  if (service) await stopService(service);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('bursts of large list answers', () => {
  it('keep resident memory within a small multiple of its level, and leave nothing behind in the heap', async () => {
    // Warm up: the code paths, the heap and the engine's caches at their working size for one reader.
    for (let i = 0; i < 3; i += 1) expect([await largeRead(false), await largeRead(true)]).toEqual([200, 200]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = residentBytes();
    const heapBefore = await heap.usedAfterCollection();

    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes())), 20);
    const statuses: number[] = [];
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        statuses.push(...(await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => largeRead(i % 2 === 1)))));
      }
    } finally {
      clearInterval(sampler);
    }
    const heapAfter = await heap.usedAfterCollection();
    const ratios = { peak: peak / before, heapAfter: heapAfter / heapBefore };
    console.log(
      `resident memory: before ${(before / 2 ** 20).toFixed(0)} MiB, peak x${ratios.peak.toFixed(2)}; ` +
        `heap after a full collection: before ${(heapBefore / 2 ** 20).toFixed(0)} MiB, after x${ratios.heapAfter.toFixed(3)}`,
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Measured on 2026-11-28: bounded, x1.42-1.56 alone and x1.77 beside the whole suite; unbounded
    // (PAGE_BYTE_BUDGET=1gb), x2.89 and x3.31, of a level itself 1.5 times higher. The bound sits between.
    expect(ratios.peak).toBeLessThan(2.2);
    // One answer kept past its request (a page cache, a listener holding its request) is some
    // 17 MB, a tenth or more of this heap.
    expect(ratios.heapAfter).toBeLessThan(1.05);
  }, 180_000);
});
