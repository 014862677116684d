import { IsInt, IsOptional, Max, Min, ValidateBy, type ValidationOptions } from 'class-validator';
import type { Collection as DriverCollection, Document, Long } from 'mongodb';
import { trusted, type Model } from 'mongoose';
import { decodeDocument } from './bson-documents.js';
import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { toObjectId } from './object-id.js';

/**
 * Cursor pagination shared by every list: `{items, nextCursor}`, ordered by
 * `_id` (ObjectIds grow with insertion time, so the order is stable and a
 * record inserted during a walk never shifts the pages already read).
 * Lists are oldest first unless they ask `findPage` for `order: 'desc'`
 * (newest first, e.g. the audit trail).
 * The cursor is opaque to clients: the base64url of the last item's 12 id
 * bytes. `nextCursor` is null on the last page.
 */
export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * The GraphQL page type of one item class. Use it as a base class so the
 * page gets its own name: `@ObjectType() class MealMenuPage extends Paginated(MealMenu) {}`.
 */
export function Paginated<TItem extends object>(
  itemClass: ClassType<TItem>,
  { itemsDescription = 'The items of this page, in id order.' }: { itemsDescription?: string } = {},
) {
  // Abstract and never named in a resolver, so the schema only emits the subclasses.
  @ObjectType()
  abstract class PageType implements Page<TItem> {
    @Field(() => [itemClass], { description: itemsDescription })
    items!: TItem[];

    @Field(() => String, {
      nullable: true,
      description: 'Pass as `cursor` to read the next page; null on the last page.',
    })
    nextCursor!: string | null;
  }
  return PageType;
}

/** What a cursor this service hands out looks like (12 id bytes in base64url). */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{16}$/;

export function encodeCursor(id: { toHexString(): string }): string {
  return Buffer.from(id.toHexString(), 'hex').toString('base64url');
}

/** The id a cursor points after, or null when it is not one of ours. */
export function decodeCursor(cursor: string): string | null {
  // Node's base64 decoder skips characters it does not know: check the shape first.
  if (!CURSOR_PATTERN.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  return bytes.length === 12 ? bytes.toString('hex') : null;
}

/** class-validator rule `isPageCursor`: a cursor this service handed out. */
export function IsPageCursor(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPageCursor',
      validator: {
        validate: (value) => typeof value === 'string' && decodeCursor(value) !== null,
        defaultMessage: () => '$property must be a nextCursor returned by a previous page',
      },
    },
    options,
  );
}

/** `limit` and `cursor`, the arguments every list takes; extend it for filters. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, {
    defaultValue: DEFAULT_PAGE_LIMIT,
    description: `Items per page, 1 to ${MAX_PAGE_LIMIT}.`,
  })
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_LIMIT)
  limit: number = DEFAULT_PAGE_LIMIT;

  @Field(() => String, { nullable: true, description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @IsPageCursor()
  cursor?: string | null;
}

/**
 * What `findPage` needs of a model: `find(filter).sort(..).limit(..)`,
 * awaited. A mongoose model is one; `collectionPages` makes one that runs
 * the driver's find command.
 */
export interface PageableModel<TDoc> {
  find(filter: Record<string, unknown>): {
    sort(sort: { _id: 1 | -1 }): { limit(limit: number): PromiseLike<TDoc[]> & { maxTimeMS?(ms: number): PromiseLike<TDoc[]> } };
  };
}

/**
 * The pages of a model's collection read with the driver's `find`, as
 * stored (no schema defaults: apply them to the items). mongoose's query
 * building, filter casting and sanitizing around a find were about 5% of a
 * menu page's CPU; without them nothing casts or sanitizes the filter, so
 * its values must already have the stored types and be no client objects
 * (e.g. arguments validated as strings or enums, ids from `toObjectId`).
 *
 * Each record comes as its bytes, decoded by decodeDocument (its comment
 * says why). A page one reply holds, read with the default read preference
 * and read concern, is one find command run as such: the driver's cursor
 * around it cost about a third more of the page's CPU (it parses every
 * record into an element table to hand its bytes on). Anything else goes to
 * the driver's cursor (`raw`), which does what the command alone does not: a
 * page past one reply's 16 MiB (its getMores go to the server that holds the
 * cursor, in its session), a read preference or read concern from the URI,
 * and an error (it retries a read once after a step-down or a network error).
 */
export function collectionPages<TDoc>(model: Pick<Model<unknown>, 'db' | 'collection'>): PageableModel<TDoc> {
  return {
    find: (filter) => ({
      sort: (sort) => ({
        limit: async (limit) => ((await onePageCommand(model, filter, sort, limit)) ?? (await cursorPage(model, filter, sort, limit))) as TDoc[],
      }),
    }),
  };
}

/** The reply's cursor: `id` 0 once the server holds no more of it. */
interface CursorReply {
  cursor: { id: Long | number; firstBatch: Uint8Array[] };
}

/** The page from one find command, or undefined when the driver's cursor must read it (collectionPages). */
async function onePageCommand(model: Pick<Model<unknown>, 'db' | 'collection'>, filter: Document, sort: Document, limit: number): Promise<Document[] | undefined> {
  const db = model.db.db;
  const collection = (model.collection as unknown as { collection?: DriverCollection }).collection;
  if (!db || !collection || (collection.readPreference?.mode ?? 'primary') !== 'primary' || collection.readConcern !== undefined) return undefined;
  // One session for the find and, if the page did not fit, the killCursors of what it left open.
  const session = model.db.getClient().startSession();
  try {
    const { cursor } = (await db.command(
      { find: collection.collectionName, filter, sort, limit },
      // promoteLongs off: a cursor id goes back to the server as the int64 it came as.
      { fieldsAsRaw: { firstBatch: true }, promoteLongs: false, session },
    )) as CursorReply;
    if (typeof cursor.id === 'number' ? cursor.id === 0 : cursor.id.isZero()) return cursor.firstBatch.map(decodeDocument);
    await db.command({ killCursors: collection.collectionName, cursors: [cursor.id] }, { session }).catch(() => undefined);
    return undefined;
  } catch {
    return undefined;
  } finally {
    await session.endSession().catch(() => undefined);
  }
}

async function cursorPage(model: Pick<Model<unknown>, 'collection'>, filter: Document, sort: Document, limit: number): Promise<Document[]> {
  const records = (await model.collection.find(filter, { sort, limit, raw: true }).toArray()) as unknown as Uint8Array[];
  return records.map(decodeDocument);
}

/** `asc`: oldest first (the default); `desc`: newest first. */
export type PageOrder = 'asc' | 'desc';

export interface FindPageOptions {
  order?: PageOrder;
  /**
   * A filter no index bounds may read far more than its page: the read
   * ends past this many milliseconds (maxTimeMS) with MongoDB's
   * MaxTimeMSExpired (50), which the service answers 503 with Retry-After.
   */
  maxTimeMS?: number;
}

let listReadTimeLimitMs = 2000;

/** The service's LIST_READ_TIME_LIMIT, set once at start (createService). */
export function setListReadTimeLimit(ms: number): void {
  listReadTimeLimitMs = ms;
}

export function listReadTimeLimit(): number {
  return listReadTimeLimitMs;
}

/**
 * Runs `filter` as one page: sorted by `_id` (ascending unless `order` is
 * `desc`), after the cursor's id in that order, asking one extra record to
 * know whether another page follows.
 */
export async function findPage<TDoc extends { _id: { toHexString(): string } }>(
  model: PageableModel<TDoc>,
  filter: Record<string, unknown>,
  { limit, cursor }: { limit: number; cursor?: string | null },
  { order = 'asc', maxTimeMS }: FindPageOptions = {},
): Promise<Page<TDoc>> {
  const afterId = cursor ? decodeCursor(cursor) : null;
  const after = order === 'desc' ? '$lt' : '$gt';
  const pageFilter = afterId ? { $and: [filter, { _id: trusted({ [after]: toObjectId(afterId) }) }] } : filter;
  const query = model.find(pageFilter).sort({ _id: order === 'desc' ? -1 : 1 }).limit(limit + 1);
  const found = await (maxTimeMS !== undefined && query.maxTimeMS ? query.maxTimeMS(maxTimeMS) : query);
  const items = found.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: found.length > limit && last ? encodeCursor(last._id) : null };
}
