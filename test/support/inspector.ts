import type { ServiceProcess } from './service-process.js';

/**
 * A child process's V8 heap, read through its inspector (the Chrome DevTools
 * Protocol over WebSocket): start the child with `inspectorEnv()` merged into
 * its environment, then `attachInspector(service)`. Heap sizes after a full
 * garbage collection are exact where resident memory is what the allocator
 * chose to keep.
 */
export interface ChildHeap {
  /** Bytes of the V8 heap in use now (collected or not). */
  used(): Promise<number>;
  /** Bytes in use after a full garbage collection. */
  usedAfterCollection(): Promise<number>;
  close(): void;
}

/** Opens the inspector on an ephemeral loopback port; it prints its WebSocket URL. */
export function inspectorEnv(): Record<string, string> {
  return { NODE_OPTIONS: '--inspect=127.0.0.1:0' };
}

export async function attachInspector(service: ServiceProcess): Promise<ChildHeap> {
  await service.waitFor('Debugger listening on ws://');
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(service.output())![1]!;
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`inspector at ${url} refused the connection`)), { once: true });
  });
  let nextId = 1;
  const pending = new Map<number, (result: Record<string, unknown>) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
    if (message.id !== undefined) pending.get(message.id)?.(message.result ?? {});
    pending.delete(message.id!);
  });
  const send = (method: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method }));
    });
  const used = async () => (await send('Runtime.getHeapUsage')).usedSize as number;
  return {
    used,
    usedAfterCollection: async () => {
      await send('HeapProfiler.collectGarbage');
      return used();
    },
    close: () => socket.close(),
  };
}
