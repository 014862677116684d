import net from 'node:net';
import type { Document } from '../src/engine/query/types.js';
import { encodeOpMsg, FrameReader } from '../src/engine/wire/index.js';
import { medianLatencyUs } from './measure.js';

/** The engine's own cost: one OP_MSG command over a bare socket, without the driver's JavaScript. */
export async function rawRoundTrip(port: number, body: Document, iterations = 5000): Promise<number> {
  const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const reader = new FrameReader();
  let waiting: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    if (reader.push(chunk).length > 0) waiting?.();
  });
  const message = Buffer.concat(encodeOpMsg({ requestId: 1, body }));
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

export const rawPing = (port: number) => rawRoundTrip(port, { ping: 1, $db: 'admin' });

/** The shape of the driver's findOne({_id}) (run after pingVsFindOne has filled bench.points). */
export const rawFindById = (port: number) =>
  rawRoundTrip(port, { find: 'points', filter: { _id: 7 }, limit: 1, singleBatch: true, batchSize: 1, $db: 'bench' });
