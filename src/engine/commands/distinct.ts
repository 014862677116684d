import { collectionParam, missingField, optionalDocument, optionalString } from '../params/index.js';
import { getPathValues } from '../query/index.js';
import type { Collation } from '../query/types.js';
import { collationFor, readDocuments } from '../reads/index.js';
import { canonicalKey } from '../storage/index.js';
import type { CommandHandler } from './types.js';

/** distinct: the distinct values of a path; array values contribute their elements. */
export const distinctCommand: CommandHandler = {
  name: 'distinct',
  help: 'distinct values: {distinct: <collection>, key, query, collation}',
  handle(body, ctx) {
    const coll = collectionParam(body, 'distinct');
    const key = optionalString(body, 'distinct', 'key');
    if (key === undefined) throw missingField('distinct', 'key');
    const query = optionalDocument(body, 'distinct', 'query') ?? {};
    const requested = optionalDocument(body, 'distinct', 'collation') as Collation | undefined;
    const collation = collationFor(ctx.engine.storage, ctx.db, coll, requested);

    // canonicalKey is equal exactly when mongod's equality (under the collation) is.
    const seen = new Set<string>();
    const values: unknown[] = [];
    const add = (value: unknown): void => {
      if (value === undefined) return;
      const key = canonicalKey(value, collation);
      if (seen.has(key)) return;
      seen.add(key);
      values.push(value);
    };
    for (const doc of readDocuments(ctx.engine.storage, ctx.db, coll, { filter: query, collation, hint: body.hint })) {
      for (const value of getPathValues(doc, key)) {
        if (Array.isArray(value)) value.forEach(add);
        else add(value);
      }
    }
    return { values };
  },
};
