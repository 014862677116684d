import { randomUUID } from 'node:crypto';
import type { Collection, Db, Document } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compatTargets, connectTarget } from './targets.js';

/**
 * FerretDB-style compat tables: each case seeds its own collection, runs one
 * operation through the official driver and states the result, or the error
 * CODE (never the message) the server must answer with.
 */
/** Cases use plain `_id`s (numbers, strings), so the collection is untyped. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LooseCollection = Collection<any>;

export interface CompatCase {
  name: string;
  /** Documents inserted into the case's fresh collection first. */
  seed?: Document[];
  /** Indexes created before seeding. */
  indexes?: { key: Document; options?: Document }[];
  run(coll: LooseCollection, db: Db): Promise<unknown>;
  /** The expected result (compared with toEqual). */
  expected?: unknown;
  /** The expected server error code. */
  code?: number;
}

/** Runs every table against every target, one fresh database per file. */
export function describeCompat(family: string, cases: CompatCase[]): void {
  for (const target of compatTargets()) {
    describe(`${family} (${target.name})`, () => {
      let db: Db;
      let close: () => Promise<void>;
      beforeAll(async () => {
        const conn = await connectTarget(target);
        db = conn.client.db(`compat_${family.replace(/\W/g, '_')}_${randomUUID().slice(0, 8)}`);
        close = async () => {
          await db.dropDatabase();
          await conn.close();
        };
      });
      afterAll(async () => close?.());

      cases.forEach((c, i) => {
        it(c.name, async () => {
          const coll: LooseCollection = db.collection(`c${i}`);
          for (const ix of c.indexes ?? []) await coll.createIndex(ix.key, ix.options ?? {});
          if (c.seed?.length) await coll.insertMany(c.seed.map((d) => ({ ...d })));
          if (c.code !== undefined) {
            const err = await c.run(coll, db).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(err, 'expected a server error').toBeInstanceOf(MongoServerError);
            expect((err as MongoServerError).code).toBe(c.code);
          } else {
            expect(await c.run(coll, db)).toEqual(c.expected);
          }
        });
      });
    });
  }
}

/** Strips `_id` (generated ids differ between runs). */
export function withoutIds(docs: Document[]): Document[] {
  return docs.map(({ _id, ...rest }) => rest);
}
