import { BSON, Long } from 'bson';
import { describe, expect, it } from 'vitest';
import { CursorStore } from '../../../src/engine/cursors/index.js';
import { createDispatcher, type CommandContext, type EngineState } from '../../../src/engine/commands/index.js';
import { createMemoryStorage } from '../../../src/engine/storage/index.js';
import { encodeDocument } from '../../../src/engine/wire/index.js';

/**
 * find by a plain `_id` answers from the stored bytes. In process the reply
 * still reads as an ordinary find reply; on the wire it is the same BSON the
 * general path writes.
 */
function context(): CommandContext {
  const storage = createMemoryStorage();
  storage.insert('db', 'people', { _id: 1, name: 'ann', tags: ['a'] });
  const engine = { storage, cursors: new CursorStore(), startedAt: new Date(), version: '7.0.0', connections: () => 1, connectionsCreated: () => 1 } as EngineState;
  return { engine, connection: { id: 1, remoteAddress: '127.0.0.1:1' }, db: 'db' };
}

const findOne = (id: unknown) => ({ find: 'people', filter: { _id: id }, limit: 1, singleBatch: true, $db: 'db' });

describe('find by _id', () => {
  it('reads in process as a find reply with the decoded document', async () => {
    const reply = await createDispatcher()(findOne(1), context());
    const cursor = reply.cursor as { firstBatch: unknown; id: Long; ns: string };
    expect([cursor.firstBatch, cursor.id.isZero(), cursor.ns, reply.ok]).toEqual([[{ _id: 1, name: 'ann', tags: ['a'] }], true, 'db.people', 1]);
  });

  it('encodes to the bytes BSON.serialize gives for the same reply', async () => {
    const reply = await createDispatcher()(findOne(1), context());
    const plain = { cursor: { firstBatch: [{ _id: 1, name: 'ann', tags: ['a'] }], id: Long.fromInt(0), ns: 'db.people' }, ok: 1 };
    expect(Buffer.from(encodeDocument(reply))).toEqual(Buffer.from(BSON.serialize(plain)));
  });

  it('encodes a reply changed after it was built by its current content', async () => {
    const reply = await createDispatcher()(findOne(1), context());
    reply.note = 'added';
    const decoded = BSON.deserialize(encodeDocument(reply));
    expect([decoded.cursor.firstBatch, decoded.note]).toEqual([[{ _id: 1, name: 'ann', tags: ['a'] }], 'added']);
  });

  it('answers a missing _id with an empty exhausted batch', async () => {
    const reply = await createDispatcher()(findOne(2), context());
    expect(BSON.deserialize(encodeDocument(reply))).toEqual({ cursor: { firstBatch: [], id: 0, ns: 'db.people' }, ok: 1 });
  });
});
