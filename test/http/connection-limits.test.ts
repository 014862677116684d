import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionsWithin, openFilesLimit, RESERVED_DESCRIPTORS } from '../../src/http/connection-limits.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * One client IP may hold at most MAX_CONNECTIONS_PER_IP connections open:
 * the ones past it are closed as accepted, and taken again once some close
 * (issue 27, item 7). The total cap is proved with a real `ulimit -n` in
 * test/service/descriptor-pressure.test.ts.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { MAX_CONNECTIONS_PER_IP: '3' } });
});
afterAll(() => app?.close());

/** Connects and resolves with the socket and whether the server closed it within `waitMs`. */
async function open(waitMs = 300): Promise<{ socket: Socket; closedByServer: boolean }> {
  const socket = connect(Number(new URL(app.baseUrl).port), '127.0.0.1');
  socket.on('error', () => undefined);
  const closedByServer = await new Promise<boolean>((resolve) => {
    socket.once('close', () => resolve(true));
    socket.once('end', () => resolve(true));
    setTimeout(() => resolve(false), waitMs);
  });
  return { socket, closedByServer };
}

describe('MAX_CONNECTIONS_PER_IP=3', () => {
  it('closes a fourth connection from one IP and takes one again once another closed', async () => {
    const held = await Promise.all([open(), open(), open()]);
    expect(held.map((c) => c.closedByServer)).toEqual([false, false, false]);
    const fourth = await open();
    expect(fourth.closedByServer).toBe(true);
    held[0]!.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await open();
    expect(again.closedByServer).toBe(false);
    [...held, fourth, again].forEach((c) => c.socket.destroy());
  });

  it('answers as usual once the held connections are gone', async () => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await app.http('GET', '/healthz')).status).toBe(200);
  });
});

describe('the default total cap', () => {
  it('is the soft open-file limit less the reserve, a quarter of the limit at least, none when unknown', () => {
    const limits = 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n';
    expect(openFilesLimit(limits)).toBe(1024);
    expect(openFilesLimit('Max open files            unlimited            unlimited            files\n')).toBeUndefined();
    expect(connectionsWithin(20_000)).toBe(20_000 - RESERVED_DESCRIPTORS);
    expect(connectionsWithin(256)).toBe(64);
    expect(connectionsWithin(undefined)).toBeUndefined();
  });
});
