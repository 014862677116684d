import { expect } from 'vitest';
import { apiCase, callOperation, runCases } from '../support/surfaces.js';
import {
  client,
  exactMessage,
  isNewestFirst,
  keyWithUses,
  makeKey,
  member,
  op,
  otherMember,
  outsider,
  reader,
  useApiKeysApp,
  VIEW_REFUSAL,
} from './api-key-fixtures.js';

/** An API key's usage log (`includeUsageLogs`, `usageLogs`) over both surfaces. */

useApiKeysApp();

runCases("reading an API key's usage log", client, [
  apiCase({
    name: 'pages every use, newest first; the first page of 100 is what the record shows',
    arrange: () => keyWithUses(member, 105),
    caller: () => member,
    operation: ({ id }) => op.usageLogs(id, { limit: 100 }),
    expect: {
      status: 200,
      data: async (page, made, outcome) => {
        expect(page.items).toHaveLength(100);
        expect(page.nextCursor).toEqual(expect.any(String));
        const record = await callOperation(client(), outcome.surface, op.get(made.id, true), member);
        expect(page.items).toEqual((record.data as { usageLogs: unknown[] }).usageLogs);
        const rest = await callOperation(client(), outcome.surface, op.usageLogs(made.id, { limit: 100, cursor: page.nextCursor }), member);
        const restPage = rest.data as { items: { at: string }[]; nextCursor: string | null };
        expect(restPage.items).toHaveLength(5);
        expect(restPage.nextCursor).toBeNull();
        const all = [...page.items, ...restPage.items];
        expect(isNewestFirst(all)).toBe(true);
        expect(new Set(all.map((entry: { at: string }) => entry.at)).size).toBe(105);
      },
    },
  }),
  apiCase({
    name: 'pages in small steps too',
    arrange: () => keyWithUses(member, 5),
    caller: () => member,
    operation: ({ id }) => op.usageLogs(id, { limit: 2 }),
    expect: {
      status: 200,
      data: async (page, made, outcome) => {
        const seen = [...page.items];
        let cursor = page.nextCursor;
        while (cursor) {
          const next = (await callOperation(client(), outcome.surface, op.usageLogs(made.id, { limit: 2, cursor }), member)).data as typeof page;
          seen.push(...next.items);
          cursor = next.nextCursor;
        }
        expect(seen.map((entry: { at: string }) => entry.at)).toEqual(
          Array.from({ length: 5 }, (_, i) => new Date(made.newest.getTime() - i * 60_000).toISOString()),
        );
      },
    },
  }),
  apiCase({
    name: 'is allowed to a holder of api-keys:read',
    arrange: () => keyWithUses(member, 2),
    caller: () => reader,
    operation: ({ id }) => op.usageLogs(id),
    expect: { status: 200, data: (page) => expect(page.items).toHaveLength(2) },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with the same 403',
    arrange: () => keyWithUses(member, 2),
    caller: () => otherMember,
    operation: ({ id }) => op.usageLogs(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(VIEW_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => keyWithUses(member, 2),
    caller: () => outsider,
    operation: ({ id }) => op.usageLogs(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a cursor it did not hand out (400 naming cursor)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.usageLogs(id, { cursor: 'not a cursor' }),
    expect: { status: 400, fieldErrors: [{ field: 'cursor', rule: 'isPageCursor' }] },
  }),
]);
