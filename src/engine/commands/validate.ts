import { mongoError } from '../errors.js';
import { collectionParam, namespaceOf } from '../params/index.js';
import { compileFilter } from '../query/index.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import { isView } from '../reads/index.js';
import type { CommandHandler } from './types.js';

/**
 * validate (`db.coll.validate()`): checks that every index holds an entry
 * for each document it covers, and counts the documents that fail the
 * collection's validator (a warning, as in mongod, not an error).
 */
export const validateCommand: CommandHandler = {
  name: 'validate',
  help: 'check a collection and its indexes: {validate: <collection>, full: <bool>}',
  handle(body, ctx) {
    const coll = collectionParam(body, 'validate');
    const storage = ctx.engine.storage;
    const ns = namespaceOf(ctx.db, coll);
    const info = storage.collection(ctx.db, coll);
    if (!info) throw mongoError('NamespaceNotFound', `Collection '${ns}' does not exist to validate.`);
    if (isView(info)) throw mongoError('CommandNotSupportedOnView', 'Cannot validate a view');
    const sizes = storage.collectionSizes(ctx.db, coll)!;

    const warnings: string[] = [];
    const errors: string[] = [];
    const keysPerIndex: Document = {};
    const indexDetails: Document = {};
    for (const spec of info.indexes) {
      const entries = sizes.indexEntries[spec.name] ?? 0;
      keysPerIndex[spec.name] = entries;
      // A plain single-value index holds exactly one entry per document; others may hold more or fewer.
      const exact = spec.name === '_id_';
      const valid = !exact || entries === sizes.count;
      if (!valid) errors.push(`index ${spec.name} has ${entries} entries for ${sizes.count} documents`);
      indexDetails[spec.name] = { valid };
    }
    let nonCompliant = 0;
    const validator = info.options.validator;
    if (isPlainObject(validator) && Object.keys(validator).length > 0) {
      const matches = compileFilter(validator);
      for (const doc of storage.scan(ctx.db, coll)) if (!matches(doc)) nonCompliant++;
      if (nonCompliant > 0) warnings.push(`Detected one or more documents not compliant with the collection's schema.`);
    }
    return {
      ns,
      uuid: info.uuid,
      nInvalidDocuments: 0,
      nNonCompliantDocuments: nonCompliant,
      nrecords: sizes.count,
      nIndexes: info.indexes.length,
      keysPerIndex,
      indexDetails,
      valid: errors.length === 0,
      repaired: false,
      warnings,
      errors,
      extraIndexEntries: [],
      missingIndexEntries: [],
      corruptRecords: [],
    };
  },
};
