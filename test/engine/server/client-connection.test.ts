import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { EngineState } from '../../../src/engine/commands/index.js';
import { ClientConnection } from '../../../src/engine/server/client-connection.js';
import { encodeOpMsg } from '../../../src/engine/wire/index.js';

/** The part of a socket a connection uses; it only records pause/resume. */
class FakeSocket extends EventEmitter {
  paused = false;
  destroyed = false;
  writableNeedDrain = false;
  remoteAddress = '127.0.0.1';
  remotePort = 1;
  pause() {
    this.paused = true;
  }
  resume() {
    this.paused = false;
  }
  isPaused() {
    return this.paused;
  }
  write() {
    return true;
  }
  destroy() {
    this.destroyed = true;
  }
}

/** A whole OP_MSG of about `bytes` bytes. */
function bigMessage(requestId: number, bytes: number): Buffer {
  return Buffer.concat(encodeOpMsg({ requestId, body: { ping: 1, $db: 'admin', pad: 'x'.repeat(bytes) } }));
}

describe('client connection: reading stops while work is waiting', () => {
  it('pauses the socket once the waiting messages hold too many bytes, however few they are', () => {
    const socket = new FakeSocket();
    // A command that never finishes: everything sent after it waits in the queue.
    const dispatch = () => new Promise<never>(() => {});
    new ClientConnection(socket as unknown as Socket, 1, {
      engine: {} as EngineState,
      dispatch,
      nextRequestId: () => 1,
      log: () => {},
    });
    for (let i = 1; i <= 5; i++) socket.emit('data', bigMessage(i, 20 * 1024 * 1024));
    expect(socket.paused).toBe(true);
  });
});
