import { BSON } from 'bson';

/**
 * The BSON of findAndModify's `{lastErrorObject: {n: 1, updatedExisting: true}, value: <doc>, ok: 1}`
 * written around the updated document's stored bytes, so the document just
 * encoded for storage is not serialized a second time for the reply. The
 * bytes equal `BSON.serialize` of that object when the stored bytes are the
 * document's serialization (`ok: 1` as an int32, as the dispatcher's `ok: 1`
 * serializes).
 */
const UPDATED_EXISTING = elementsOf(BSON.serialize({ lastErrorObject: { n: 1, updatedExisting: true } }));
/** type document, "value" (the stored document follows) */
const VALUE_KEY = Buffer.from('\x03value\0', 'latin1');
/** int32 "ok" 1; end of reply */
const OK_ONE_END = Buffer.from('\x10ok\0\x01\0\0\0\0', 'latin1');

/** The element bytes of a serialized document (without its length and final zero). */
function elementsOf(doc: Uint8Array): Buffer {
  return Buffer.from(doc.subarray(4, doc.length - 1));
}

export function encodeUpdatedValueReply(stored: Uint8Array): Buffer {
  const total = 4 + UPDATED_EXISTING.length + VALUE_KEY.length + stored.length + OK_ONE_END.length;
  const out = Buffer.allocUnsafe(total);
  out.writeInt32LE(total, 0);
  let at = 4;
  out.set(UPDATED_EXISTING, at);
  at += UPDATED_EXISTING.length;
  out.set(VALUE_KEY, at);
  at += VALUE_KEY.length;
  out.set(stored, at);
  at += stored.length;
  out.set(OK_ONE_END, at);
  return out;
}
