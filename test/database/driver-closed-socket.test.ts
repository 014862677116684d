import { createRequire } from 'node:module';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * patches/mongodb+7.2.0.patch: the driver's `Connection.writeCommand` waits
 * for 'drain' when a write does not fit the socket's buffer, and a socket
 * that is closed without an error (destroyed by a socket timeout, or by the
 * server going away a tick before the driver hears of it) never emits one:
 * the command, a heartbeat included, waited for good, and a service whose
 * engine was killed stayed unready after the engine came back. With the
 * patch the write fails as a network error, which the driver retries or
 * reports. Unpatched, these tests time out.
 */

// The driver's own connection class, over a real socket: the public API
// gives no handle on the moment between a socket's destroy and its 'close'.
const require = createRequire(import.meta.url);
type Written = { writeCommand(message: unknown, options: { agreedCompressor: 'none' }): Promise<void> };
const { Connection } = require('mongodb/lib/cmap/connection.js') as {
  Connection: new (socket: net.Socket, options: { id: number; hostAddress: { toString(): string } }) => Written;
};
const { OpMsgRequest } = require('mongodb/lib/cmap/commands.js') as {
  OpMsgRequest: new (db: string, command: object, options: object) => unknown;
};
const { MongoNetworkError } = require('mongodb') as typeof import('mongodb');

/** A peer that accepts and never reads: a large write fills the socket's buffers. */
let peer: net.Server;
const peerSockets = new Set<net.Socket>();
/** Callers waiting for the peer's side of their connection, in connection order. */
const accepting: Array<(socket: net.Socket) => void> = [];
beforeAll(async () => {
  peer = net.createServer((socket) => {
    peerSockets.add(socket);
    socket.pause();
    accepting.shift()?.(socket);
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of peerSockets) socket.destroy();
  await new Promise((resolve) => peer.close(resolve));
});

async function connection(id: number): Promise<{ connection: Written; socket: net.Socket; peerSide: net.Socket }> {
  const { port } = peer.address() as net.AddressInfo;
  const accepted = new Promise<net.Socket>((resolve) => accepting.push(resolve));
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const peerSide = await accepted;
  return { connection: new Connection(socket, { id, hostAddress: { toString: () => `127.0.0.1:${port}` } }), socket, peerSide };
}

const ping = (padding = 0) => new OpMsgRequest('admin', { ping: 1, padding: 'x'.repeat(padding) }, {});
const WRITE = { agreedCompressor: 'none' } as const;

/** Settles within the test's time, or reports that it did not. */
const settledWithin = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise.then(
      () => 'written',
      (error: unknown) => error,
    ),
    new Promise((resolve) => setTimeout(() => resolve('still waiting'), ms)),
  ]);

describe('the mongodb driver, patched: a write on a socket that closes without an error', () => {
  it('fails at once as a network error when the socket is already destroyed (before its close event)', async () => {
    const { connection: conn, socket } = await connection(1);
    socket.destroy(); // 'close' is emitted on a later tick: the heartbeat's window
    const outcome = await settledWithin(conn.writeCommand(ping(), WRITE), 2_000);
    expect(outcome).toBeInstanceOf(MongoNetworkError);
    expect((outcome as Error).message).toMatch(/connection 1 to 127\.0\.0\.1:\d+ closed/);
  });

  it('fails as a network error when the socket closes while the write waits for drain', async () => {
    const { connection: conn, socket } = await connection(2);
    // 15 MiB (a command is at most 16): more than the kernel takes in for a peer that does not read.
    const writing = conn.writeCommand(ping(15 << 20), WRITE);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(socket.writableNeedDrain).toBe(true);
    socket.destroy(); // as the connection's socket timeout does: no 'error', only 'close'
    const outcome = await settledWithin(writing, 2_000);
    expect(outcome).toBeInstanceOf(MongoNetworkError);
    expect(socket.listenerCount('drain')).toBe(0); // the wait for it ended with the write
  });

  it('still resolves a write that drains', async () => {
    const { connection: conn, socket, peerSide } = await connection(3);
    const writing = conn.writeCommand(ping(15 << 20), WRITE);
    peerSide.resume();
    expect(await settledWithin(writing, 10_000)).toBe('written');
    expect(socket.listenerCount('drain')).toBe(0);
    expect(socket.listenerCount('close')).toBe(1); // the connection's own; the write's is gone
  });
});
