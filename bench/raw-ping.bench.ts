import net from 'node:net';
import { encodeOpMsg, FrameReader } from '../src/engine/wire/index.js';
import { medianLatencyUs } from './measure.js';

/** The engine's own cost: an OP_MSG ping over a bare socket, without the driver's JavaScript. */
export async function rawPing(port: number, iterations = 5000): Promise<number> {
  const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const reader = new FrameReader();
  let waiting: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    if (reader.push(chunk).length > 0) waiting?.();
  });
  const message = Buffer.concat(encodeOpMsg({ requestId: 1, body: { ping: 1, $db: 'admin' } }));
  try {
    return await medianLatencyUs(
      () =>
        new Promise<void>((resolve) => {
          waiting = resolve;
          socket.write(message);
        }),
      { iterations },
    );
  } finally {
    socket.destroy();
  }
}
