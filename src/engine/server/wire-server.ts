import { chmodSync } from 'node:fs';
import net from 'node:net';
import type { Dispatch, EngineState } from '../commands/index.js';
import { ClientConnection } from './client-connection.js';

/** Where the server listens: a TCP address, or a unix domain socket (see unix-socket.ts). */
export type ListenAt = { host: string; port: number } | { socketPath: string };

/** The network side of the engine: accepts connections and tracks them until shutdown. */
export interface WireServer {
  /** As bound: the port the system picked for port 0. */
  readonly address: { host: string; port: number } | { socketPath: string };
  connectionCount(): number;
  /** Connections accepted since start (serverStatus.connections.totalCreated). */
  connectionsCreated(): number;
  /** Stops accepting, closes every connection, waits for in-flight commands. */
  close(): Promise<void>;
}

export interface WireServerOptions {
  listen: ListenAt;
  engine: EngineState;
  dispatch: Dispatch;
  log(line: string): void;
}

export async function startWireServer({ listen, engine, dispatch, log }: WireServerOptions): Promise<WireServer> {
  const connections = new Set<ClientConnection>();
  let created = 0;
  let requestId = 0;
  const nextRequestId = () => (requestId = (requestId + 1) & 0x7fffffff);

  // noDelay: replies are small and latency-bound; Nagle would add up to 40 ms.
  const server = net.createServer({ noDelay: true, keepAlive: true }, (socket) => {
    const connection = new ClientConnection(socket, ++created, { engine, dispatch, nextRequestId, log });
    connections.add(connection);
    socket.once('close', () => connections.delete(connection));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve();
    };
    if ('socketPath' in listen) server.listen({ path: listen.socketPath }, listening);
    else server.listen(listen.port, listen.host, listening);
  });
  server.on('error', (err) => log(`engine: server error: ${err.message}`));
  // The socket is created with the umask's mode; connecting needs write access,
  // so 0600 leaves it to this user (its directory is 0700 as well, closing the
  // moment between bind and chmod).
  if ('socketPath' in listen) {
    try {
      chmodSync(listen.socketPath, 0o600);
    } catch (err) {
      server.close();
      throw err;
    }
  }
  const address = 'socketPath' in listen ? listen : { host: listen.host, port: (server.address() as net.AddressInfo).port };

  let closing: Promise<void> | undefined;
  return {
    address,
    connectionCount: () => connections.size,
    connectionsCreated: () => created,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        const inFlight = [...connections].map((connection) => {
          connection.destroy();
          return connection.whenIdle();
        });
        await Promise.all(inFlight);
        await stopped;
      })();
      return closing;
    },
  };
}
