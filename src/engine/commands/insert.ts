import { mongoError } from '../errors.js';
import { collectionParam, requiredArray } from '../params/index.js';
import { isPlainObject } from '../query/values.js';
import { assertNotBuckets, assertNotView } from '../reads/index.js';
import { documentCheck, flushWrites, isOrdered, prepareInsert, runStatements, sizeChecked, timeSeriesCheck, withWriteErrors } from '../writes/index.js';
import type { CommandHandler } from './types.js';

/** insert: documents one by one; ordered stops at the first error, unordered goes on. */
export const insertCommand: CommandHandler = {
  name: 'insert',
  help: 'insert documents: {insert: <collection>, documents: [...], ordered}',
  async handle(body, ctx) {
    const coll = collectionParam(body, 'insert');
    const documents = requiredArray(body, 'insert', 'documents');
    if (!documents.every(isPlainObject)) {
      throw mongoError('TypeMismatch', "BSON field 'insert.documents' must contain only objects");
    }
    const ordered = isOrdered(body);
    const storage = ctx.engine.storage;
    assertNotView(storage, ctx.db, coll);
    assertNotBuckets(storage, ctx.db, coll);

    // The collection is created even when every document fails, as mongod does.
    storage.ensureCollection(ctx.db, coll);
    const check = documentCheck(storage, ctx.db, coll, body.bypassDocumentValidation);
    const measurement = timeSeriesCheck(storage, ctx.db, coll);
    let n = 0;
    const writeErrors = runStatements(documents, ordered, (document) => {
      const doc = prepareInsert(document);
      measurement(doc);
      check(doc);
      sizeChecked(() => storage.insert(ctx.db, coll, doc), 'insert');
      n++;
    });
    await flushWrites(ctx.engine.storage, body);
    return withWriteErrors({ n }, writeErrors);
  },
};
