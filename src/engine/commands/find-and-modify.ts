import { BSON } from 'bson';
import { mongoError } from '../errors.js';
import { collectionParam, letParam, optionalArray, optionalBool, optionalDocument } from '../params/index.js';
import { checkUpdate, compileProjection } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import { assertNotBuckets, assertNotView, collationFor, readFirst } from '../reads/index.js';
import { encodeUpdatedValueReply, SELF_ENCODER } from '../wire/index.js';
import { documentCheck, flushWrites, updateOne, upsertOne } from '../writes/index.js';
import type { CommandHandler } from './types.js';

interface FindAndModifyParams {
  coll: string;
  query: Document;
  sort?: Document;
  remove: boolean;
  update?: Document | Document[];
  returnNew: boolean;
  upsert: boolean;
  fields?: Document;
  arrayFilters?: Document[];
  collation?: Collation;
  variables?: Document;
  hint?: unknown;
}

function parseParams(body: Document, command: string): FindAndModifyParams {
  const update = body.update;
  if (update !== undefined && update !== null && !isPlainObject(update) && !Array.isArray(update)) {
    throw mongoError('FailedToParse', "BSON field 'findAndModify.update' must be an object or an array");
  }
  const params: FindAndModifyParams = {
    coll: collectionParam(body, command),
    query: optionalDocument(body, command, 'query') ?? {},
    sort: optionalDocument(body, command, 'sort'),
    remove: optionalBool(body, command, 'remove') ?? false,
    update: (update ?? undefined) as Document | Document[] | undefined,
    returnNew: optionalBool(body, command, 'new') ?? false,
    upsert: optionalBool(body, command, 'upsert') ?? false,
    fields: optionalDocument(body, command, 'fields'),
    arrayFilters: optionalArray(body, command, 'arrayFilters') as Document[] | undefined,
    collation: optionalDocument(body, command, 'collation') as Collation | undefined,
    variables: letParam(body, command),
    hint: body.hint,
  };
  if (params.remove) {
    if (params.update !== undefined) throw mongoError('FailedToParse', 'Cannot specify both an update and remove=true');
    if (params.upsert) throw mongoError('FailedToParse', 'Cannot specify both upsert=true and remove=true');
    if (params.returnNew) {
      throw mongoError('FailedToParse', "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document");
    }
  } else if (params.update === undefined) {
    throw mongoError('FailedToParse', 'Either an update or remove=true must be specified');
  }
  return params;
}

/**
 * A reply whose wire form splices the stored bytes of its `value`, while it
 * is exactly as built plus the dispatcher's `ok: 1` (else BSON.serialize).
 */
function withStoredValue(reply: Document, stored: Uint8Array): Document {
  const { lastErrorObject, value } = reply;
  const encode = (body: Document): Uint8Array => {
    const asBuilt =
      body.value === value &&
      body.lastErrorObject === lastErrorObject &&
      body.ok === 1 &&
      Object.keys(body).join() === 'lastErrorObject,value,ok' &&
      Object.keys(lastErrorObject as Document).join() === 'n,updatedExisting' &&
      (lastErrorObject as Document).n === 1 &&
      (lastErrorObject as Document).updatedExisting === true;
    return asBuilt ? encodeUpdatedValueReply(stored) : BSON.serialize(body);
  };
  return { ...reply, [SELF_ENCODER]: encode };
}

/**
 * findAndModify: one document found, changed and returned atomically (no
 * await between reading and writing). Errors, duplicate key included, are
 * command errors, not writeErrors.
 */
export const findAndModifyCommand: CommandHandler = {
  name: 'findAndModify',
  aliases: ['findandmodify'],
  help: 'find, change and return one document: {findAndModify: <collection>, query, sort, remove, update, new, upsert, fields}',
  async handle(body, ctx) {
    const command = Object.keys(body)[0] ?? 'findAndModify';
    const p = parseParams(body, command);
    const storage = ctx.engine.storage;
    const { db } = ctx;
    assertNotView(storage, db, p.coll);
    assertNotBuckets(storage, db, p.coll);
    const projected = p.fields !== undefined && Object.keys(p.fields).length > 0;
    const project = projected ? compileProjection(p.fields!, p.query) : (doc: Document) => doc;

    // mongod parses the update before reading: a bad one is refused even when nothing matches.
    if (p.update !== undefined) checkUpdate(p.update, { isInsert: false, arrayFilters: p.arrayFilters, collation: p.collation });
    const found = readFirst(storage, db, p.coll, {
      filter: p.query,
      sort: p.sort,
      collation: p.collation,
      hint: p.hint,
      variables: p.variables,
    });
    let reply: Document;
    if (p.remove) {
      if (found) storage.remove(db, p.coll, found._id, found);
      reply = { lastErrorObject: { n: found ? 1 : 0 }, value: found ? project(found) : null };
    } else {
      const check = documentCheck(storage, db, p.coll, body.bypassDocumentValidation);
      const collation = collationFor(storage, db, p.coll, p.collation);
      const opts = { filter: p.query, arrayFilters: p.arrayFilters, collation, variables: p.variables, check };
      if (found) {
        // applyUpdate works on a copy, so `found` is still the pre-image.
        const { doc, modified } = updateOne(storage, db, p.coll, found, p.update!, opts);
        reply = { lastErrorObject: { n: 1, updatedExisting: true }, value: project(p.returnNew ? doc : found) };
        // The new document as a whole was just encoded for storage: the reply reuses those bytes.
        const stored = modified && p.returnNew && !projected ? storage.findRawById(db, p.coll, doc._id) : undefined;
        if (stored !== undefined) reply = withStoredValue(reply, Buffer.from(stored, 'latin1'));
      } else if (p.upsert) {
        const doc = upsertOne(storage, db, p.coll, p.update!, opts);
        reply = {
          lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id },
          value: p.returnNew ? project(doc) : null,
        };
      } else {
        reply = { lastErrorObject: { n: 0, updatedExisting: false }, value: null };
      }
    }
    await flushWrites(ctx.engine.storage, body);
    return reply;
  },
};
