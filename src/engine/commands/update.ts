import { mongoError } from '../errors.js';
import { assertKnownFields, collectionParam, letParam, missingField, optionalArray, optionalBool, optionalDocument, requiredArray } from '../params/index.js';
import type { Collation, Document } from '../query/types.js';
import { checkUpdate } from '../query/index.js';
import { isPlainObject } from '../query/values.js';
import { assertNotBuckets, assertNotView, collationFor, readDocuments } from '../reads/index.js';
import { assertTimeSeriesUpdate, documentCheck, flushWrites, isOrdered, isReplacement, isTimeSeries, runStatements, updateOne, upsertOne, withWriteErrors } from '../writes/index.js';
import type { CommandHandler } from './types.js';

interface UpdateStatement {
  q: Document;
  u: Document | Document[];
  upsert: boolean;
  multi: boolean;
  arrayFilters?: Document[];
  collation?: Collation;
  hint?: unknown;
}

/** The fields of mongod 7.0's UpdateOpEntry (`sort` only exists from 8.0). */
const UPDATE_STATEMENT_FIELDS = new Set([
  'q', 'u', 'c', 'upsert', 'multi', 'arrayFilters', 'hint', 'collation', 'upsertSupplied', 'sampleId',
  'allowShardKeyUpdatesWithoutFullShardKeyInQuery',
]);

function parseStatement(raw: unknown): UpdateStatement {
  if (!isPlainObject(raw)) throw mongoError('TypeMismatch', "BSON field 'update.updates' must contain only objects");
  assertKnownFields(raw, 'update.updates', UPDATE_STATEMENT_FIELDS);
  const q = optionalDocument(raw, 'update.updates', 'q');
  if (q === undefined) throw missingField('update.updates', 'q');
  const u = raw.u;
  if (u === undefined) throw missingField('update.updates', 'u');
  if (!isPlainObject(u) && !Array.isArray(u)) {
    throw mongoError('FailedToParse', "BSON field 'update.updates.u' must be an object or an array");
  }
  return {
    q,
    u: u as Document | Document[],
    upsert: optionalBool(raw, 'update.updates', 'upsert') ?? false,
    multi: optionalBool(raw, 'update.updates', 'multi') ?? false,
    arrayFilters: optionalArray(raw, 'update.updates', 'arrayFilters') as Document[] | undefined,
    collation: optionalDocument(raw, 'update.updates', 'collation') as Collation | undefined,
    hint: raw.hint,
  };
}

/** update: each statement updates one or all matches, or upserts. */
export const updateCommand: CommandHandler = {
  name: 'update',
  help: 'update documents: {update: <collection>, updates: [{q, u, upsert, multi, arrayFilters, collation}], ordered}',
  async handle(body, ctx) {
    const coll = collectionParam(body, 'update');
    const statements = requiredArray(body, 'update', 'updates');
    const ordered = isOrdered(body);
    const variables = letParam(body, 'update');
    const storage = ctx.engine.storage;
    assertNotView(storage, ctx.db, coll);
    assertNotBuckets(storage, ctx.db, coll);
    const check = documentCheck(storage, ctx.db, coll, body.bypassDocumentValidation);
    const info = storage.collection(ctx.db, coll);
    const timeSeries = isTimeSeries(info) ? info : undefined;

    let n = 0;
    let nModified = 0;
    const upserted: Document[] = [];
    // Malformed statements fail the whole command (mongod parses them all first).
    const parsed = statements.map(parseStatement);
    const writeErrors = runStatements(parsed, ordered, (st, index) => {
      if (timeSeries) assertTimeSeriesUpdate(timeSeries, st);
      if (st.multi && isReplacement(st.u)) {
        throw mongoError('FailedToParse', 'multi update is not supported for replacement-style update');
      }
      const collation = collationFor(storage, ctx.db, coll, st.collation);
      const opts = { filter: st.q, arrayFilters: st.arrayFilters, collation, variables, check };
      // mongod parses the update before reading: a bad one is refused even when nothing matches.
      checkUpdate(st.u, { isInsert: false, arrayFilters: st.arrayFilters, collation, variables });
      // The scan's document set is fixed when it starts, so an updated
      // document is never visited twice.
      const matches = readDocuments(storage, ctx.db, coll, {
        filter: st.q,
        collation,
        hint: st.hint,
        variables,
        limit: st.multi ? 0 : 1,
      });
      let matched = 0;
      for (const doc of matches) {
        matched++;
        if (updateOne(storage, ctx.db, coll, doc, st.u, opts).modified) nModified++;
        n++;
      }
      if (matched === 0 && st.upsert) {
        const doc = upsertOne(storage, ctx.db, coll, st.u, opts);
        n++;
        upserted.push({ index, _id: doc._id });
      }
    });
    await flushWrites(ctx.engine.storage, body);
    const reply: Document = { n, nModified };
    if (upserted.length > 0) reply.upserted = upserted;
    return withWriteErrors(reply, writeErrors);
  },
};
