import { validate } from 'class-validator';
import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, findPage, PageArgs, type Page, type PageableModel, type PageOrder } from '../../src/shared/pagination.js';

function pageArgs(values: Partial<PageArgs>): PageArgs {
  return Object.assign(new PageArgs(), values);
}

async function failedRules(args: PageArgs): Promise<Record<string, string[]>> {
  const failures = await validate(args);
  return Object.fromEntries(failures.map((f) => [f.property, Object.keys(f.constraints ?? {})]));
}

describe('page cursors', () => {
  it('round-trip the id of the last item', () => {
    const id = new Types.ObjectId();
    expect(decodeCursor(encodeCursor(id))).toBe(id.toHexString());
  });

  it.each([
    ['not base64url', '!!!!!!!!!!!!!!!!'],
    ['too short', 'AAAA'],
    ['a raw id', '65f0c0ffee0000000000cafe'],
  ])('reject a cursor that is %s', (_why, cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
  });
});

describe('page arguments', () => {
  it('default to 20 items and no cursor', async () => {
    const args = new PageArgs();
    expect(args.limit).toBe(20);
    expect(await failedRules(args)).toEqual({});
  });

  it.each([
    [0, 'min'],
    [101, 'max'],
    [2.5, 'isInt'],
  ])('refuse limit %s (rule %s)', async (limit, rule) => {
    expect((await failedRules(pageArgs({ limit })))['limit']).toContain(rule);
  });

  it('refuse a cursor this service did not hand out', async () => {
    expect(await failedRules(pageArgs({ cursor: 'nonsense' }))).toEqual({ cursor: ['isPageCursor'] });
  });

  it('accept a cursor it handed out', async () => {
    expect(await failedRules(pageArgs({ cursor: encodeCursor(new Types.ObjectId()) }))).toEqual({});
  });
});

/**
 * A model over an in-memory list that answers the one query shape findPage
 * sends: the filter, optionally `$and`-ed with an `_id` bound, sorted by `_id`.
 */
type Item = { _id: Types.ObjectId };

function fakeModel(items: Item[]): PageableModel<Item> {
  const after = (filter: Record<string, any>) => {
    const bound = (filter['$and']?.[1]?._id ?? {}) as { $gt?: Types.ObjectId; $lt?: Types.ObjectId };
    return (item: Item) =>
      (!bound.$gt || item._id.toHexString() > bound.$gt.toHexString()) &&
      (!bound.$lt || item._id.toHexString() < bound.$lt.toHexString());
  };
  return {
    find: (filter: Record<string, any>) => ({
      sort: ({ _id: direction }: { _id: 1 | -1 }) => ({
        limit: (n: number) =>
          Promise.resolve(
            items
              .filter(after(filter))
              .sort((a, b) => direction * a._id.toHexString().localeCompare(b._id.toHexString()))
              .slice(0, n),
          ),
      }),
    }),
  } as unknown as PageableModel<Item>;
}

async function walkPages(model: PageableModel<Item>, limit: number, order?: PageOrder): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const page: Page<Item> = await findPage(model, {}, { limit, cursor }, order ? { order } : undefined);
    pages.push(page.items.map((item) => item._id.toHexString()));
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

describe('findPage', () => {
  // Five ids in insertion order (ObjectIds grow with time).
  const ids = Array.from({ length: 5 }, () => new Types.ObjectId());
  const hex = ids.map((id) => id.toHexString());
  const model = fakeModel(ids.map((_id) => ({ _id })));

  it('pages oldest first by default', async () => {
    expect(await walkPages(model, 2)).toEqual([hex.slice(0, 2), hex.slice(2, 4), hex.slice(4)]);
  });

  it("pages newest first with order 'desc', each id once, the last page without a cursor", async () => {
    const newestFirst = [...hex].reverse();
    expect(await walkPages(model, 2, 'desc')).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
  });

  it("hands out no cursor when a 'desc' page holds the rest", async () => {
    expect((await findPage(model, {}, { limit: 5 }, { order: 'desc' })).nextCursor).toBeNull();
  });
});
