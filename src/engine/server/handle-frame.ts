import type { CommandContext, ConnectionInfo, Dispatch, EngineState } from '../commands/index.js';
import type { Document } from '../query/types.js';
import { encodeOpMsg, encodeOpReply, OpCode, parseOpMsg, parseOpQuery, WireProtocolError, type ReplyAllocator } from '../wire/index.js';

/**
 * One whole message in, the reply's bytes out (undefined: send nothing).
 * OP_MSG carries every command; OP_QUERY only the handshake (isMaster/hello
 * on `<db>.$cmd`), as mongod 6+ does. A frame that cannot be read throws a
 * WireProtocolError and the caller closes the connection.
 */
export interface FrameContext {
  engine: EngineState;
  connection: ConnectionInfo;
  dispatch: Dispatch;
  nextRequestId(): number;
  /** Memory for a large reply body, valid until the reply is written (reply-memory.ts); else new Buffers. */
  allocate?: ReplyAllocator;
}

const HANDSHAKE_COMMANDS = new Set(['hello', 'isMaster', 'ismaster']);

export async function handleFrame(frame: Buffer, fc: FrameContext): Promise<Uint8Array[] | undefined> {
  const opCode = frame.readInt32LE(12);
  if (opCode === OpCode.OP_MSG) return handleOpMsg(frame, fc);
  if (opCode === OpCode.OP_QUERY) return handleOpQuery(frame, fc);
  throw new WireProtocolError(`unsupported opcode ${opCode}`);
}

async function handleOpMsg(frame: Buffer, fc: FrameContext): Promise<Uint8Array[] | undefined> {
  const msg = parseOpMsg(frame);
  const db = msg.body.$db;
  const reply =
    typeof db === 'string' && db !== ''
      ? await fc.dispatch(msg.body, context(fc, db))
      : failure(40571, 'Location40571', 'OP_MSG requests require a $db argument');
  // moreToCome: an unacknowledged write; the client reads no reply.
  if (msg.moreToCome) return undefined;
  return encodeReply((body) => encodeOpMsg({ requestId: fc.nextRequestId(), responseTo: msg.requestId, body, allocate: fc.allocate }), reply);
}

async function handleOpQuery(frame: Buffer, fc: FrameContext): Promise<Uint8Array[]> {
  const query = parseOpQuery(frame);
  // Old drivers wrap the command as {$query: {...}, $readPreference: ...}.
  const command = isDocument(query.query.$query) ? query.query.$query : query.query;
  const name = Object.keys(command)[0] ?? '';
  const ns = query.fullCollectionName;
  let reply: Document;
  if (!ns.endsWith('.$cmd') || !HANDSHAKE_COMMANDS.has(name)) {
    reply = failure(
      352,
      'UnsupportedOpQueryCommand',
      `Unsupported OP_QUERY command: ${ns.endsWith('.$cmd') ? name : 'find'}. The client driver may require an upgrade.`,
    );
  } else {
    reply = await fc.dispatch(command, context(fc, ns.slice(0, -'.$cmd'.length)));
  }
  return encodeReply((body) => encodeOpReply({ requestId: fc.nextRequestId(), responseTo: query.requestId, documents: [body] }), reply);
}

function context(fc: FrameContext, db: string): CommandContext {
  return { engine: fc.engine, connection: fc.connection, db };
}

/** A reply too large (or otherwise impossible) to serialize becomes an error reply. */
function encodeReply(encode: (body: Document) => Uint8Array[], reply: Document): Uint8Array[] {
  try {
    return encode(reply);
  } catch (err) {
    return encode(failure(10334, 'BSONObjectTooLarge', `reply could not be serialized: ${(err as Error).message}`));
  }
}

function failure(code: number, codeName: string, errmsg: string): Document {
  return { ok: 0, errmsg, code, codeName };
}

function isDocument(value: unknown): value is Document {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
