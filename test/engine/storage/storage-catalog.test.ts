import { describe, expect, it } from 'vitest';
import { storageKinds, storagePerTest, thrown } from './storage-kinds.js';

describe.each(storageKinds)('$name storage: catalog', (kind) => {
  const { storage: s, harness: h } = storagePerTest(kind);

  it('creates a collection with a subtype-4 uuid, its options and the _id_ index', () => {
    const info = s.createCollection('app', 'logs', { capped: true, size: 4096 });
    expect(info).toMatchObject({ db: 'app', name: 'logs', options: { capped: true, size: 4096 } });
    expect(info.uuid.sub_type).toBe(4);
    expect(info.indexes).toEqual([{ v: 2, key: { _id: 1 }, name: '_id_' }]);
  });

  it('refuses to create an existing collection with NamespaceExists (48)', () => {
    s.createCollection('app', 'logs');
    expect(thrown(() => s.createCollection('app', 'logs')).code).toBe(48);
  });

  it('ensureCollection creates once and then returns the same collection', () => {
    const a = s.ensureCollection('app', 'c');
    const b = s.ensureCollection('app', 'c');
    expect(b.uuid.toString('hex')).toBe(a.uuid.toString('hex'));
  });

  it('rejects an invalid namespace with InvalidNamespace (73)', () => {
    expect(thrown(() => s.createCollection('app', '')).code).toBe(73);
    expect(thrown(() => s.createCollection('a.b', 'c')).code).toBe(73);
  });

  it('lists databases that hold collections, and their collections', () => {
    s.ensureCollection('b', 'x');
    s.ensureCollection('a', 'y');
    s.ensureCollection('a', 'z');
    expect(s.databases()).toEqual(['a', 'b']);
    expect(s.collections('a').map((c) => c.name).sort()).toEqual(['y', 'z']);
    expect(s.collections('none')).toEqual([]);
  });

  it('hands out catalog copies that cannot change the live catalog', () => {
    s.ensureCollection('app', 'c');
    s.collection('app', 'c')!.indexes.push({ name: 'fake', key: { f: 1 } });
    expect(s.collection('app', 'c')!.indexes.map((i) => i.name)).toEqual(['_id_']);
  });

  it('drops a collection with its documents and reports whether it existed', () => {
    s.insert('app', 'c', { _id: 1 });
    expect(s.dropCollection('app', 'c')).toBe(true);
    expect(s.dropCollection('app', 'c')).toBe(false);
    expect(s.collection('app', 'c')).toBeUndefined();
    s.ensureCollection('app', 'c');
    expect(s.count('app', 'c')).toBe(0);
  });

  it('drops a database with all its collections', () => {
    s.insert('app', 'a', { _id: 1 });
    s.insert('app', 'b', { _id: 1 });
    s.insert('other', 'a', { _id: 1 });
    s.dropDatabase('app');
    expect(s.databases()).toEqual(['other']);
  });

  it('keeps collections, options, indexes and documents across close and reopen', async () => {
    const info = s.createCollection('app', 'users', { validator: { $jsonSchema: { required: ['email'] } } });
    s.createIndex('app', 'users', { name: 'email_1', key: { email: 1 }, unique: true });
    s.insert('app', 'users', { _id: 1, email: 'a@x' });
    s.insert('app', 'gone', { _id: 1 });
    s.dropCollection('app', 'gone');
    await s.flush();
    const again = await h.reopen();
    const back = again.collection('app', 'users')!;
    expect(back.uuid.toString('hex')).toBe(info.uuid.toString('hex'));
    expect(back.options).toEqual({ validator: { $jsonSchema: { required: ['email'] } } });
    expect(back.indexes.map((i) => i.name)).toEqual(['_id_', 'email_1']);
    expect(again.collection('app', 'gone')).toBeUndefined();
    expect(again.findById('app', 'users', 1)).toEqual({ _id: 1, email: 'a@x' });
  });

  it('enforces a unique index rebuilt on reopen', async () => {
    s.createIndex('app', 'users', { name: 'email_1', key: { email: 1 }, unique: true });
    s.insert('app', 'users', { _id: 1, email: 'a@x' });
    const again = await h.reopen();
    expect(thrown(() => again.insert('app', 'users', { _id: 2, email: 'a@x' })).code).toBe(11000);
  });

  it('does not resurrect dropped indexes or removed documents on reopen', async () => {
    s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 } });
    s.insert('app', 'c', { _id: 1 });
    s.insert('app', 'c', { _id: 2 });
    s.remove('app', 'c', 1);
    s.dropIndex('app', 'c', 'v_1');
    const again = await h.reopen();
    expect(again.collection('app', 'c')!.indexes.map((i) => i.name)).toEqual(['_id_']);
    expect([...again.scan('app', 'c')].map((d) => d._id)).toEqual([2]);
  });
});
