import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';
import { endFailed, SpanKind, startChildSpan, type Span } from './tracing.js';

/**
 * A CLIENT span per database command a request sends, from the driver's
 * command monitoring (the client must be connected with `monitorCommands`),
 * so mongoose's calls and the stores' direct driver calls are both seen.
 * The driver emits `commandStarted` synchronously inside the caller's async
 * context, which is how the span finds its request. Attributes follow the
 * database semantic conventions; the command itself (filters, values) is
 * never read beyond its name and collection.
 */
export function traceDatabaseCommands(client: Pick<MongoClient, 'on'>): void {
  // By the driver's request id (unique in the process), until the command succeeds or fails.
  const open = new Map<number, Span>();
  client.on('commandStarted', (event: CommandStartedEvent) => {
    const collection = collectionOf(event);
    const child = startChildSpan(`${event.commandName} ${collection ?? event.databaseName}`, SpanKind.CLIENT, {
      // DB_SYSTEM_NAME_VALUE_MONGODB, still in the conventions' incubating entry.
      [ATTR_DB_SYSTEM_NAME]: 'mongodb',
      [ATTR_DB_OPERATION_NAME]: event.commandName,
      [ATTR_DB_NAMESPACE]: event.databaseName,
      ...(collection ? { [ATTR_DB_COLLECTION_NAME]: collection } : {}),
      ...serverOf(event.address),
    });
    if (child) open.set(event.requestId, child.span);
  });
  client.on('commandSucceeded', (event: CommandSucceededEvent) => {
    open.get(event.requestId)?.end();
    open.delete(event.requestId);
  });
  client.on('commandFailed', (event: CommandFailedEvent) => {
    const span = open.get(event.requestId);
    if (!span) return;
    open.delete(event.requestId);
    // The server's code name (DuplicateKey), never its message: that quotes the values.
    const { code, codeName } = event.failure as { code?: unknown; codeName?: unknown };
    if (code !== undefined) span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, String(code));
    endFailed(span, event.failure, typeof codeName === 'string' ? codeName : undefined);
  });
}

/** The collection a command names: its first field's value (find: 'users'), or getMore's `collection`. */
function collectionOf(event: CommandStartedEvent): string | undefined {
  const command = event.command as Record<string, unknown>;
  const named = event.commandName === 'getMore' ? command.collection : command[event.commandName];
  return typeof named === 'string' ? named : undefined;
}

/** `host:port`, or a unix socket's path (the embedded engine's), as server.address and server.port. */
function serverOf(address: string): Record<string, string | number> {
  const match = /^(.*):(\d+)$/.exec(address);
  return match ? { [ATTR_SERVER_ADDRESS]: match[1].replace(/^\[(.*)\]$/, '$1'), [ATTR_SERVER_PORT]: Number(match[2]) } : { [ATTR_SERVER_ADDRESS]: address };
}
