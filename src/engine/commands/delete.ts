import { mongoError } from '../errors.js';
import { assertKnownFields, collectionParam, letParam, missingField, optionalDocument, requiredArray } from '../params/index.js';
import type { Collation, Document } from '../query/types.js';
import { isPlainObject, toDouble } from '../query/values.js';
import { assertNotBuckets, assertNotView, readDocuments } from '../reads/index.js';
import { flushWrites, isOrdered, runStatements, withWriteErrors } from '../writes/index.js';
import type { CommandHandler } from './types.js';

interface DeleteStatement {
  q: Document;
  limit: 0 | 1;
  collation?: Collation;
  hint?: unknown;
}

/** The fields of mongod 7.0's DeleteOpEntry. */
const DELETE_STATEMENT_FIELDS = new Set(['q', 'limit', 'hint', 'collation', 'sampleId']);

function parseStatement(raw: unknown): DeleteStatement {
  if (!isPlainObject(raw)) throw mongoError('TypeMismatch', "BSON field 'delete.deletes' must contain only objects");
  assertKnownFields(raw, 'delete.deletes', DELETE_STATEMENT_FIELDS);
  const q = optionalDocument(raw, 'delete.deletes', 'q');
  if (q === undefined) throw missingField('delete.deletes', 'q');
  if (raw.limit === undefined) throw missingField('delete.deletes', 'limit');
  const limit = toDouble(raw.limit);
  if (limit !== 0 && limit !== 1) {
    throw mongoError('FailedToParse', `The limit field in delete objects must be 0 or 1. Got ${limit}`);
  }
  return {
    q,
    limit,
    collation: optionalDocument(raw, 'delete.deletes', 'collation') as Collation | undefined,
    hint: raw.hint,
  };
}

/** delete: each statement removes one (limit 1) or all (limit 0) matches. */
export const deleteCommand: CommandHandler = {
  name: 'delete',
  help: 'delete documents: {delete: <collection>, deletes: [{q, limit: 0|1, collation}], ordered}',
  async handle(body, ctx) {
    const coll = collectionParam(body, 'delete');
    const statements = requiredArray(body, 'delete', 'deletes');
    const ordered = isOrdered(body);
    const variables = letParam(body, 'delete');
    const storage = ctx.engine.storage;
    assertNotView(storage, ctx.db, coll);
    assertNotBuckets(storage, ctx.db, coll);

    let n = 0;
    // Malformed statements fail the whole command (mongod parses them all first).
    const parsed = statements.map(parseStatement);
    const writeErrors = runStatements(parsed, ordered, (st) => {
      const matches = readDocuments(storage, ctx.db, coll, {
        filter: st.q,
        collation: st.collation,
        hint: st.hint,
        variables,
        limit: st.limit,
      });
      for (const doc of matches) if (storage.remove(ctx.db, coll, doc._id, doc)) n++;
    });
    await flushWrites(ctx.engine.storage, body);
    return withWriteErrors({ n }, writeErrors);
  },
};
