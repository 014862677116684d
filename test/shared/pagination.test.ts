import { validate } from 'class-validator';
import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, PageArgs } from '../../src/shared/pagination.js';

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
