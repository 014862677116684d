import { mongoError } from '../errors.js';
import { compileFilter, naturalDirection } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import type { Storage } from '../storage/index.js';
import { defaultCollation } from './read-documents.js';

/**
 * A tailable cursor's way on past the end of its results: the documents a
 * capped collection received after the last one read (cursors/cursor-store.ts).
 */
export interface TailSource {
  /** `awaitData`: an empty getMore waits for an insert, up to its maxTimeMS. */
  readonly awaitData: boolean;
  /** The namespace whose inserts wake a waiting getMore. */
  readonly ns: string;
  /** CappedPositionLost (136) when capping removed the last document read. */
  checkPosition(): void;
  /** The matching documents inserted after the last one read. */
  resume(): Iterator<Document>;
}

export interface TailableReadOptions {
  filter: Document;
  sort?: Document;
  skip?: number;
  limit?: number;
  collation?: Collation;
  variables?: Document;
  awaitData: boolean;
}

/**
 * find's tailable read of a capped collection: natural order only (mongod
 * refuses another sort), the first results now and a TailSource for the
 * documents inserted later. BadValue on a collection that is not capped.
 */
export function tailableRead(storage: Storage, db: string, coll: string, opts: TailableReadOptions): { first: Iterable<Document>; tail: TailSource } {
  const sort = opts.sort && Object.keys(opts.sort).length > 0 ? opts.sort : undefined;
  if (sort && naturalDirection(sort) !== 1) throw mongoError('BadValue', 'cannot use tailable option with a sort other than {$natural: 1}');
  const info = storage.collection(db, coll);
  const ns = `${db}.${coll}`;
  if (info?.options.capped !== true) {
    // mongod names the parsed query in its message; an empty filter reads `$and`.
    const tree = Object.keys(opts.filter).length === 0 ? `ns=${ns}Tree: $and\nSort: {}\nProj: {}\n ` : '';
    throw mongoError('BadValue', `error processing query: ${tree}tailable cursor requested on non capped collection`);
  }
  const matches = compileFilter(opts.filter, { collation: opts.collation ?? defaultCollation(info), variables: opts.variables });
  let last = 0;
  let toSkip = opts.skip ?? 0;
  let left = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
  function* after(from: Iterable<[number, Document]>): Generator<Document> {
    for (const [record, doc] of from) {
      if (left <= 0) return;
      last = record;
      if (!matches(doc)) continue;
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      left--;
      yield doc;
    }
  }
  const tail: TailSource = {
    awaitData: opts.awaitData,
    ns,
    checkPosition: () => void storage.tail(db, coll, last),
    resume: () => after(storage.tail(db, coll, last)),
  };
  return { first: after(storage.tail(db, coll, 0)), tail };
}
