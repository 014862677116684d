import { isPlainObject } from '../query/index.js';
import { serverFacts } from '../standalone/index.js';
import type { CommandHandler } from './types.js';

/**
 * The handshake (first as OP_QUERY isMaster, then OP_MSG hello heartbeats).
 * We answer as a writable standalone: no setName/hosts (the driver would add
 * txnNumber and reconnect to listed hosts) and no topologyVersion (that turns
 * on streaming exhaust heartbeats, which we do not implement).
 */
export const helloCommand: CommandHandler = {
  name: 'hello',
  aliases: ['isMaster', 'ismaster'],
  help: 'describes this server to drivers (handshake and heartbeats)',
  handle(body, ctx) {
    if (ctx.connection.client === undefined && isPlainObject(body.client)) ctx.connection.client = body.client;
    const legacy = body.hello === undefined;
    return {
      ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
      ...(body.helloOk ? { helloOk: true } : {}),
      maxBsonObjectSize: serverFacts.maxBsonObjectSize,
      maxMessageSizeBytes: serverFacts.maxMessageSizeBytes,
      maxWriteBatchSize: serverFacts.maxWriteBatchSize,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: serverFacts.logicalSessionTimeoutMinutes,
      connectionId: ctx.connection.id,
      minWireVersion: serverFacts.minWireVersion,
      maxWireVersion: serverFacts.maxWireVersion,
      readOnly: false,
    };
  },
};
