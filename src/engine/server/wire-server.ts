import net from 'node:net';
import type { Dispatch, EngineState } from '../commands/index.js';
import { ClientConnection } from './client-connection.js';

/** The TCP side of the engine: accepts connections and tracks them until shutdown. */
export interface WireServer {
  readonly host: string;
  readonly port: number;
  connectionCount(): number;
  /** Connections accepted since start (serverStatus.connections.totalCreated). */
  connectionsCreated(): number;
  /** Stops accepting, closes every connection, waits for in-flight commands. */
  close(): Promise<void>;
}

export interface WireServerOptions {
  host: string;
  port: number;
  engine: EngineState;
  dispatch: Dispatch;
  log(line: string): void;
}

export async function startWireServer({ host, port, engine, dispatch, log }: WireServerOptions): Promise<WireServer> {
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
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log(`engine: server error: ${err.message}`));
  const address = server.address() as net.AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    host,
    port: address.port,
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
