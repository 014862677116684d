import { IsBoolean, IsOptional, ValidateBy, type ValidationOptions } from 'class-validator';
import type { Collection as DriverCollection, Document, Long } from 'mongodb';
import { trusted, type Model } from 'mongoose';
import { currentAnswerBudget, type AnswerBudget } from './answer-budget.js';
import { AnsweredOverRestWhen } from './rest-switch.js';
import { decodeDocument } from './bson-documents.js';
import { ArgsType, Extensions, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { IsIntegerIn } from './integer-rule.js';
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

/** The GraphQL extension marking a page's `items` field: the cost rule counts its selection once per item of the limit, the rest of the page once. */
export const PAGE_ITEMS_EXTENSION = 'pageItems';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /**
   * How many records the whole list holds (its filter, every page), counted
   * only when the answer asks for it: a lazy thenable (lazyTotal) that runs
   * its count when GraphQL resolves `totalCount`, which it does only when the
   * field is selected (REST: with includeTotal=true, use-sofa-rest.ts).
   */
  totalCount?: PromiseLike<number> | number | null;
}

/**
 * A count run the first time something awaits it, and only then: a page
 * carries one in `totalCount`, and copying the page (`{...page, items}`)
 * copies the thenable without running it.
 */
export function lazyTotal(count: () => PromiseLike<number>): PromiseLike<number> {
  let counted: PromiseLike<number> | undefined;
  return {
    then: (onCounted, onFailed) => (counted ??= count()).then(onCounted, onFailed),
  };
}

/**
 * What counting a list needs of a model: mongoose's countDocuments (a model
 * is one; collectionPages makes one on the driver).
 */
export interface CountableModel {
  countDocuments(filter: Record<string, unknown>): PromiseLike<number> & { maxTimeMS?(ms: number): PromiseLike<number> };
}

/**
 * The records `filter` matches, read within the list read time limit
 * (LIST_READ_TIME_LIMIT, MaxTimeMSExpired -> 503 as a page's read): a count
 * reads every record the filter matches, where a page stops at its limit.
 */
export function countRecords(model: CountableModel, filter: Record<string, unknown>): Promise<number> {
  const query = model.countDocuments(filter);
  return Promise.resolve(query.maxTimeMS ? query.maxTimeMS(listReadTimeLimitMs) : query);
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
    @Extensions({ [PAGE_ITEMS_EXTENSION]: true })
    items!: TItem[];

    @Field(() => String, {
      nullable: true,
      description: 'Pass as `cursor` to read the next page; null on the last page.',
    })
    nextCursor!: string | null;

    @Field(() => Int, {
      nullable: true,
      description:
        'How many records the whole list holds (every page, the same filter). Counted only when asked: select it ' +
        '(GraphQL), or send includeTotal=true (REST, where it is left out otherwise).',
    })
    @AnsweredOverRestWhen('includeTotal')
    totalCount?: PromiseLike<number> | number | null;
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
  @IsIntegerIn({ min: 1, max: MAX_PAGE_LIMIT })
  limit: number = DEFAULT_PAGE_LIMIT;

  @Field(() => String, { nullable: true, description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @IsPageCursor()
  cursor?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'REST: add totalCount to the answer (counted only then). GraphQL: selecting totalCount is what counts; this adds nothing.',
  })
  @IsOptional()
  @IsBoolean()
  includeTotal?: boolean | null;
}

/**
 * What `findPage` needs of a model: `find(filter).sort(..).limit(..)`,
 * awaited. A mongoose model is one; `collectionPages` makes one that runs
 * the driver's find command.
 */
export interface PageableModel<TDoc> extends Partial<CountableModel> {
  find(filter: Record<string, unknown>): {
    /** `maxBytes`: a reader that knows record sizes may stop once past it (collectionPages); a mongoose model reads `limit`. */
    sort(sort: { _id: 1 | -1 }): { limit(limit: number, maxBytes?: number): PromiseLike<TDoc[]> & { maxTimeMS?(ms: number): PromiseLike<TDoc[]> } };
  };
}

/** Each record's size as collectionPages read it (its BSON bytes), so findPage need not measure it again. */
const storedSizes = new WeakMap<object, number>();

/** A record's size as stored: what a page's byte budget counts (the JSON answered is of the same order). */
function recordBytes(record: object): number {
  return storedSizes.get(record) ?? approximateBytes(record);
}

/**
 * About the BSON size of a value read by mongoose (a document's own fields,
 * `_doc`, when hydrated), within some 20%: bson's calculateObjectSize turns
 * each mongoose document and array into a plain copy first (toBSON), some
 * 13 µs a user record, where this takes 2.
 */
function approximateBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 5;
  if (value === null || typeof value !== 'object') return 9;
  if (Array.isArray(value)) {
    let total = 5;
    for (const item of value) total += 2 + approximateBytes(item);
    return total;
  }
  if (value instanceof Date || '_bsontype' in value) return 13;
  const own = ('_doc' in value ? value._doc : value) as Record<string, unknown>;
  let total = 5;
  for (const key of Object.keys(own)) total += key.length + 2 + approximateBytes(own[key]);
  return total;
}

/**
 * The records of `read`, in order, while their bytes fit `maxBytes`, and
 * always the first; then one more if there is one (it tells the page that
 * more follow). Measured on the raw records, so only those kept are decoded.
 */
function withinBytes(read: readonly Uint8Array[], maxBytes: number): Uint8Array[] {
  let total = 0;
  let kept = 0;
  while (kept < read.length && (kept === 0 || total + read[kept]!.byteLength <= maxBytes)) total += read[kept++]!.byteLength;
  return read.slice(0, kept + 1);
}

function decodeSized(records: readonly Uint8Array[]): Document[] {
  return records.map((bytes) => {
    const record = decodeDocument(bytes);
    storedSizes.set(record, bytes.byteLength);
    return record;
  });
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
  // The largest record of the last page read: the next one's first reply asks only for what fills its budget,
  // so a page of large records never reads a whole 16 MiB reply to answer a few of them.
  let largestRead = 0;
  return {
    // Run when awaited or given its time limit, as a mongoose query is.
    countDocuments: (filter) => ({
      then: (onCounted, onFailed) => model.collection.countDocuments(filter).then(onCounted, onFailed),
      maxTimeMS: (ms) => model.collection.countDocuments(filter, { maxTimeMS: ms }),
    }),
    find: (filter) => ({
      sort: (sort) => ({
        limit: async (limit, maxBytes = Infinity) => {
          const first = await onePageCommand(model, { filter, sort, limit, batchSize: recordsFilling(maxBytes, largestRead, limit) }, maxBytes);
          const read =
            first.records ?? (await cursorPage(model, { filter, sort, limit, batchSize: recordsFilling(maxBytes, first.largest || largestRead, limit) }, maxBytes));
          largestRead = read.reduce((largest, record) => Math.max(largest, record.byteLength), 0);
          return decodeSized(withinBytes(read, maxBytes)) as TDoc[];
        },
      }),
    }),
  };
}

/** How many records of `recordBytes` go past `maxBytes` (at most `limit`); all of them while none was read. */
function recordsFilling(maxBytes: number, recordBytes: number, limit: number): number {
  if (recordBytes === 0 || !Number.isFinite(maxBytes)) return limit;
  return Math.min(limit, Math.floor(maxBytes / recordBytes) + 1);
}

interface PageRead {
  filter: Document;
  sort: Document;
  limit: number;
  /** Records in the first reply (and each getMore's). */
  batchSize: number;
}

/** The reply's cursor: `id` 0 once the server holds no more of it. */
interface CursorReply {
  cursor: { id: Long | number; firstBatch: Uint8Array[] };
}

/**
 * The page's records from one find command, or no `records` when the
 * driver's cursor must read it (collectionPages), with the largest record
 * seen. A reply that did not hold the whole page (over 16 MiB, or its
 * `batchSize`) is enough when it already holds more than `maxBytes`.
 */
async function onePageCommand(
  model: Pick<Model<unknown>, 'db' | 'collection'>,
  { filter, sort, limit, batchSize }: PageRead,
  maxBytes: number,
): Promise<{ records?: Uint8Array[]; largest: number }> {
  const db = model.db.db;
  const collection = (model.collection as unknown as { collection?: DriverCollection }).collection;
  if (!db || !collection || (collection.readPreference?.mode ?? 'primary') !== 'primary' || collection.readConcern !== undefined) return { largest: 0 };
  // One session for the find and, if the page did not fit, the killCursors of what it left open.
  const session = model.db.getClient().startSession();
  try {
    const { cursor } = (await db.command(
      { find: collection.collectionName, filter, sort, limit, ...(batchSize < limit ? { batchSize } : {}) },
      // promoteLongs off: a cursor id goes back to the server as the int64 it came as.
      { fieldsAsRaw: { firstBatch: true }, promoteLongs: false, session },
    )) as CursorReply;
    const largest = cursor.firstBatch.reduce((max, record) => Math.max(max, record.byteLength), 0);
    if (typeof cursor.id === 'number' ? cursor.id === 0 : cursor.id.isZero()) return { records: cursor.firstBatch, largest };
    await db.command({ killCursors: collection.collectionName, cursors: [cursor.id] }, { session }).catch(() => undefined);
    return withinBytes(cursor.firstBatch, maxBytes).length < cursor.firstBatch.length ? { records: cursor.firstBatch, largest } : { largest };
  } catch {
    return { largest: 0 };
  } finally {
    await session.endSession().catch(() => undefined);
  }
}

/** The page's records through the driver's cursor, read no further than one record past `maxBytes`. */
async function cursorPage(model: Pick<Model<unknown>, 'collection'>, { filter, sort, limit, batchSize }: PageRead, maxBytes: number): Promise<Uint8Array[]> {
  const cursor = model.collection.find(filter, { sort, limit, ...(batchSize < limit ? { batchSize } : {}), raw: true });
  const records: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const record of cursor as unknown as AsyncIterable<Uint8Array>) {
      records.push(record);
      total += record.byteLength;
      if (total > maxBytes && records.length > 1) break;
    }
  } finally {
    await cursor.close();
  }
  return records;
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
 * know whether another page follows. The page also ends, with its
 * `nextCursor`, before a record that would take its request past its byte
 * budget (answer-budget.ts); it always holds at least one record.
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
  const budget = currentAnswerBudget();
  const query = model.find(pageFilter).sort({ _id: order === 'desc' ? -1 : 1 }).limit(limit + 1, budget.remaining);
  const found = await (maxTimeMS !== undefined && query.maxTimeMS ? query.maxTimeMS(maxTimeMS) : query);
  const items = takeWithinBudget(found.slice(0, limit), budget);
  const last = items.at(-1);
  // The list's own filter (the caller's tenant and filters), without the cursor: every page answers the same total.
  const { countDocuments } = model;
  const totalCount = countDocuments ? lazyTotal(() => countRecords({ countDocuments: countDocuments.bind(model) }, filter)) : null;
  return { items, nextCursor: found.length > items.length && last ? encodeCursor(last._id) : null, totalCount };
}

/** The first records whose bytes fit what the budget has left, at least one; spends them. */
function takeWithinBudget<TDoc extends object>(records: TDoc[], budget: AnswerBudget): TDoc[] {
  const room = budget.remaining;
  let total = 0;
  let kept = 0;
  for (; kept < records.length; kept += 1) {
    const bytes = recordBytes(records[kept]!);
    if (kept > 0 && total + bytes > room) break;
    total += bytes;
  }
  budget.spend(total);
  return kept === records.length ? records : records.slice(0, kept);
}
