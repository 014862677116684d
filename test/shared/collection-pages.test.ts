import type { Document } from 'mongodb';
import mongoose, { Schema, Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { collectionPages, findPage, type Page, type PageableModel, type PageOrder } from '../../src/shared/pagination.js';
import { withAnswerBudget } from '../../src/shared/answer-budget.js';
import { serviceModelsOnEngine } from '../support/models-on-engine.js';

/**
 * collectionPages runs one find command (or, past one reply, the driver's cursor) and decodes the raw records:
 * its pages must be mongoose's (`find().sort().limit().lean()`), record for
 * record, and a page the server cannot send in one reply (16 MiB) must still
 * come whole.
 */

serviceModelsOnEngine('collection_pages_test');

const Note = mongoose.model(
  'CollectionPagesNote',
  new Schema({ group: String, n: Number, text: String, at: Date, tags: [String], nested: { deep: Number } }, { collection: 'collection_pages_notes' }),
);

beforeAll(async () => {
  await Note.insertMany(
    Array.from({ length: 12 }, (_, n) => ({
      group: n % 3 === 0 ? 'a' : 'b',
      n,
      text: `note ${n} · ünïcode`,
      at: new Date(Date.UTC(2026, 0, 1 + n)),
      tags: n % 2 ? ['odd'] : [],
      nested: { deep: n * 1.5 },
    })),
  );
});

type Stored = { _id: Types.ObjectId };

async function walk(pages: PageableModel<Stored>, filter: Record<string, unknown>, limit: number, order: PageOrder) {
  const walked: unknown[][] = [];
  let cursor: string | null = null;
  do {
    const page: Page<Stored> = await findPage(pages, filter, { limit, cursor }, { order });
    walked.push(page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return walked;
}

describe('collectionPages', () => {
  it.each([
    ['every record, oldest first', {}, 5, 'asc'],
    ['a filter, newest first', { group: 'b' }, 3, 'desc'],
    ['a filter that matches nothing', { group: 'none' }, 4, 'asc'],
  ] as const)('pages as mongoose does: %s', async (_why, filter, limit, order) => {
    const ours = await walk(collectionPages<Stored>(Note), filter, limit, order);
    const theirs = await walk({ find: (f) => Note.find(f).lean<Stored[]>() }, filter, limit, order);
    expect(ours).toStrictEqual(theirs);
    expect(ours.flat().length).toBe(await Note.countDocuments(filter));
  });

  it('answers a page larger than one reply whole, in order (getMore for the rest)', async () => {
    // Three records of 6 MiB: the first reply holds two (16 MiB at most).
    const big = 'x'.repeat(6 * 1024 * 1024);
    const ids = [new Types.ObjectId(), new Types.ObjectId(), new Types.ObjectId()];
    await Note.collection.insertMany(ids.map((_id, n) => ({ _id, group: 'big', n, text: big })));
    // A byte budget over the three (the default would end the page after the first: test/shared/page-byte-budget.test.ts).
    const page = await withAnswerBudget(64 * 1024 * 1024, () =>
      findPage(collectionPages<{ _id: Types.ObjectId; n: number; text: string }>(Note), { group: 'big' }, { limit: 5 }),
    );
    expect(page.items.map((note) => [note._id.toHexString(), note.n, note.text.length])).toEqual(
      ids.map((id, n) => [id.toHexString(), n, big.length]),
    );
    expect(page.nextCursor).toBeNull();
  });

  it('reads a page past one reply through the driver\'s cursor: its getMores in its session, the first cursor killed in its own (MongoDB refuses either from another session)', async () => {
    await Note.collection.insertMany(Array.from({ length: 160 }, (_, n) => ({ group: 'many', n })));
    const uri = `mongodb://${Note.db.getClient().options.hosts[0]!.toString()}`;
    const monitored = await mongoose.createConnection(uri, { dbName: Note.db.name, monitorCommands: true }).asPromise();
    try {
      const lsidOf = (command: Document): string => (command.lsid as { id: { toString(f: string): string } }).id.toString('hex');
      const findSession = new Map<number, string>();
      const cursorSession = new Map<string, string>();
      const getMores: Array<[string, string]> = [];
      const kills: Array<[string, string]> = [];
      const client = monitored.getClient();
      client.on('commandStarted', (event) => {
        if (event.commandName === 'find') findSession.set(event.requestId, lsidOf(event.command));
        if (event.commandName === 'getMore') getMores.push([String(event.command.getMore), lsidOf(event.command)]);
        if (event.commandName === 'killCursors') for (const id of event.command.cursors as unknown[]) kills.push([String(id), lsidOf(event.command)]);
      });
      const openCursors = async () => ((await Note.db.db!.admin().command({ serverStatus: 1 })) as { engine: { openCursors: number } }).engine.openCursors;
      const openBefore = await openCursors();
      client.on('commandSucceeded', (event) => {
        if (event.commandName === 'find') cursorSession.set(String((event.reply as { cursor: { id: unknown } }).cursor.id), findSession.get(event.requestId)!);
      });
      const pages = collectionPages<{ _id: Types.ObjectId }>(monitored.model('CollectionPagesNote', Note.schema));
      // 150 records: the server's first batch holds 101, a getMore the rest.
      const read = await Promise.all(Array.from({ length: 8 }, () => findPage(pages, { group: 'many' }, { limit: 150 })));
      expect(read.map((page) => page.items.length)).toEqual(Array(8).fill(150));
      expect(getMores).toHaveLength(8);
      for (const [cursorId, lsid] of getMores) expect(lsid).toBe(cursorSession.get(cursorId));
      // The one-command try held only the first 101: its cursor is killed, nothing is left open.
      expect(kills).toHaveLength(8);
      for (const [cursorId, lsid] of kills) expect(lsid).toBe(cursorSession.get(cursorId));
      expect(await openCursors()).toBe(openBefore);
    } finally {
      await monitored.close();
    }
  });

  it('leaves a read preference from the URI to the driver\'s cursor (the one-command try would read the primary)', async () => {
    await Note.collection.insertMany(Array.from({ length: 150 }, (_, n) => ({ group: 'preferred', n })));
    const uri = `mongodb://${Note.db.getClient().options.hosts[0]!.toString()}/?readPreference=secondaryPreferred`;
    const monitored = await mongoose.createConnection(uri, { dbName: Note.db.name, monitorCommands: true }).asPromise();
    try {
      const commands: string[] = [];
      monitored.getClient().on('commandStarted', (event) => commands.push(event.commandName));
      const pages = collectionPages<{ _id: Types.ObjectId }>(monitored.model('CollectionPagesNote', Note.schema));
      const page = await findPage(pages, { group: 'preferred' }, { limit: 150 });
      expect(page.items).toHaveLength(150);
      // The cursor's find and getMore only: no find run alone and killed.
      expect(commands.filter((name) => name !== 'endSessions')).toEqual(['find', 'getMore']);
    } finally {
      await monitored.close();
    }
  });
});

describe('the byte budget of a page (answer-budget.ts)', () => {
  const MiB = 1024 * 1024;
  const large = (group: string, count: number) =>
    Note.collection.insertMany(Array.from({ length: count }, (_, n) => ({ _id: new Types.ObjectId(), group, n, text: `${n}`.padEnd(MiB, 'x') })));

  async function walkWithin(pages: PageableModel<Stored & { n: number }>, group: string, budget: number) {
    const sizes: number[] = [];
    const reached: number[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<Stored & { n: number }> = await withAnswerBudget(budget, () => findPage(pages, { group }, { limit: 100, cursor }));
      sizes.push(page.items.length);
      reached.push(...page.items.map((item) => item.n));
      cursor = page.nextCursor;
    } while (cursor && sizes.length < 20);
    return { sizes, reached };
  }

  it('ends a page of records read as bytes (collectionPages) within it, and the cursors go on to every record', async () => {
    await large('bytes', 5);
    expect(await walkWithin(collectionPages(Note), 'bytes', 2.5 * MiB)).toEqual({ sizes: [2, 2, 1], reached: [0, 1, 2, 3, 4] });
  });

  it('ends a page of mongoose documents (a model of its own) within it too', async () => {
    await large('documents', 5);
    expect(await walkWithin(Note as unknown as PageableModel<Stored & { n: number }>, 'documents', 2.5 * MiB)).toEqual({ sizes: [2, 2, 1], reached: [0, 1, 2, 3, 4] });
  });

  it('shares one budget between the pages of one request, each holding at least one record', async () => {
    await large('shared', 4);
    const pages = collectionPages<Stored & { n: number }>(Note);
    // Alone, each page would hold two records of 1 MiB; together, one holds two, the others one each.
    const read = await withAnswerBudget(2.5 * MiB, () => Promise.all([0, 1, 2].map(() => findPage(pages, { group: 'shared' }, { limit: 100 }))));
    expect(read.map((page) => page.items.length).sort()).toEqual([1, 1, 2]);
    expect(read.map((page) => typeof page.nextCursor)).toEqual(['string', 'string', 'string']);
  });
});
