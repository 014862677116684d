import { describe, expect, it } from 'vitest';
import { startEngine } from '../../../src/engine/index.js';
import { restarts } from '../support/restarts.js';

/** An engine closed with close() and started again on the same dbPath finds what it held. */
describe('durability: a clean restart on the same dbPath', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-restart');

  it('keeps collections and their indexes', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      await client.db('app').createCollection('menus');
      await client.db('app').collection('menus').createIndex({ slug: 1 }, { unique: true });
    });
    const indexes = await withClient(dbPath, (client) => client.db('app').collection('menus').listIndexes().toArray());
    expect(indexes.map((i) => i.name)).toEqual(['_id_', 'slug_1']);
  });

  it('keeps inserted documents', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, (client) => client.db('app').collection<{ _id: number }>('menus').insertMany([{ _id: 1 }, { _id: 2 }]));
    const count = await withClient(dbPath, (client) => client.db('app').collection('menus').countDocuments());
    expect(count).toBe(2);
  });

  it('keeps views and their definitions', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      await client.db('app').collection<{ _id: number }>('menus').insertMany([{ _id: 1 }, { _id: 2 }]);
      await client.db('app').createCollection('big', { viewOn: 'menus', pipeline: [{ $match: { _id: { $gt: 1 } } }] });
    });
    const ids = await withClient(dbPath, async (client) => (await client.db('app').collection('big').find().toArray()).map((d) => d._id));
    expect(ids).toEqual([2]);
  });

  it('keeps what collMod changed (hidden index, TTL, validator) and a renamed collection', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      const db = client.db('app');
      await db.collection<{ _id: number }>('menus').insertMany([{ _id: 1 }, { _id: 2 }]);
      await db.collection('menus').createIndex({ slug: 1 });
      await db.collection('menus').createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
      await db.command({ collMod: 'menus', index: { name: 'slug_1', hidden: true } });
      await db.command({ collMod: 'menus', index: { name: 'at_1', expireAfterSeconds: 60 } });
      await db.command({ collMod: 'menus', validator: { _id: { $type: 'number' } } });
      await db.collection('menus').rename('meals');
    });
    const after = await withClient(dbPath, async (client) => {
      const db = client.db('app');
      const [info] = await db.listCollections({ name: 'meals' }).toArray();
      return {
        indexes: (await db.collection('meals').listIndexes().toArray()).map(({ name, hidden, expireAfterSeconds }) => ({ name, hidden, expireAfterSeconds })),
        validator: (info as { options: { validator?: unknown } }).options.validator,
        count: await db.collection('meals').countDocuments(),
        oldGone: (await db.listCollections({ name: 'menus' }).toArray()).length === 0,
      };
    });
    expect(after).toEqual({
      indexes: [
        { name: '_id_', hidden: undefined, expireAfterSeconds: undefined },
        { name: 'slug_1', hidden: true, expireAfterSeconds: undefined },
        { name: 'at_1', hidden: undefined, expireAfterSeconds: 60 },
      ],
      validator: { _id: { $type: 'number' } },
      count: 2,
      oldGone: true,
    });
  });

  it('refuses a second engine on a dbPath that is in use', async () => {
    const dbPath = tempDir();
    const first = await startEngine({ dbPath, port: 0 });
    try {
      await expect(startEngine({ dbPath, port: 0 })).rejects.toThrow(/in use/);
    } finally {
      await first.close();
    }
  });
});
