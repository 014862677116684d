import { beforeEach, describe, expect, it } from 'vitest';
import { ObjectId } from 'bson';
import { storageKinds, storagePerTest, thrown } from './storage-kinds.js';

describe.each(storageKinds)('$name storage: indexes', (kind) => {
  const { storage: s } = storagePerTest(kind);

  const ids = (docs: Iterable<Record<string, unknown>>): unknown[] => [...docs].map((d) => d._id);

  describe('unique', () => {
    beforeEach(() => {
      s.createIndex('app', 'users', { name: 'email_1', key: { email: 1 }, unique: true });
      s.insert('app', 'users', { _id: 1, email: 'x' });
    });

    it('rejects a duplicate with mongod\'s DuplicateKey shape', () => {
      const err = thrown(() => s.insert('app', 'users', { _id: 2, email: 'x' }));
      expect(err).toMatchObject({ code: 11000, codeName: 'DuplicateKey' });
      expect(err.message).toBe('E11000 duplicate key error collection: app.users index: email_1 dup key: { email: "x" }');
      expect(err.extra).toEqual({ keyPattern: { email: 1 }, keyValue: { email: 'x' } });
    });

    it('changes nothing when an insert fails', () => {
      thrown(() => s.insert('app', 'users', { _id: 2, email: 'x' }));
      expect(s.count('app', 'users')).toBe(1);
      expect(s.findById('app', 'users', 2)).toBeUndefined();
    });

    it('rejects a replace that takes another document\'s key, keeping the old version', () => {
      s.insert('app', 'users', { _id: 2, email: 'y' });
      expect(thrown(() => s.replace('app', 'users', { _id: 2, email: 'x' })).code).toBe(11000);
      expect(s.findById('app', 'users', 2)?.email).toBe('y');
    });

    it('lets a document keep its own key on replace', () => {
      s.replace('app', 'users', { _id: 1, email: 'x', name: 'n' });
      expect(s.findById('app', 'users', 1)?.name).toBe('n');
    });

    it('frees a key when its document is removed or changes it', () => {
      s.replace('app', 'users', { _id: 1, email: 'z' });
      s.insert('app', 'users', { _id: 2, email: 'x' });
      s.remove('app', 'users', 2);
      s.insert('app', 'users', { _id: 3, email: 'x' });
      expect(s.count('app', 'users')).toBe(2);
    });

    it('treats a missing field as null: a second document without it conflicts', () => {
      s.insert('app', 'users', { _id: 2 });
      const err = thrown(() => s.insert('app', 'users', { _id: 3 }));
      expect(err.message).toBe('E11000 duplicate key error collection: app.users index: email_1 dup key: { email: null }');
      expect(err.extra?.keyValue).toEqual({ email: null });
    });

    it('treats equal numbers of different types as the same key', () => {
      s.createIndex('app', 'nums', { name: 'n_1', key: { n: 1 }, unique: true });
      s.insert('app', 'nums', { _id: 1, n: 2 });
      expect(thrown(() => s.insert('app', 'nums', { _id: 2, n: 2.0 })).code).toBe(11000);
    });

    it('fails to build over duplicate data with 11000 and creates nothing', () => {
      s.insert('app', 'users', { _id: 2, email: 'x2', team: 't' });
      s.insert('app', 'users', { _id: 3, email: 'x3', team: 't' });
      expect(thrown(() => s.createIndex('app', 'users', { name: 'team_1', key: { team: 1 }, unique: true })).code).toBe(11000);
      expect(s.collection('app', 'users')!.indexes.map((i) => i.name)).toEqual(['_id_', 'email_1']);
      s.insert('app', 'users', { _id: 4, email: 'x4', team: 't' });
    });
  });

  describe('compound unique', () => {
    beforeEach(() => {
      s.createIndex('app', 'm', { name: 'a_1_b_-1', key: { a: 1, b: -1 }, unique: true });
      s.insert('app', 'm', { _id: 1, a: 1, b: 'x' });
    });

    it('allows the same value in one field when the other differs', () => {
      s.insert('app', 'm', { _id: 2, a: 1, b: 'y' });
      expect(s.count('app', 'm')).toBe(2);
    });

    it('reports the full key on a conflict', () => {
      const err = thrown(() => s.insert('app', 'm', { _id: 2, a: 1, b: 'x' }));
      expect(err.message).toBe('E11000 duplicate key error collection: app.m index: a_1_b_-1 dup key: { a: 1, b: "x" }');
      expect(err.extra).toEqual({ keyPattern: { a: 1, b: -1 }, keyValue: { a: 1, b: 'x' } });
    });
  });

  describe('multikey', () => {
    it('indexes each array element: a shared element conflicts in a unique index', () => {
      s.createIndex('app', 't', { name: 'tags_1', key: { tags: 1 }, unique: true });
      s.insert('app', 't', { _id: 1, tags: ['a', 'b', 'b'] });
      s.insert('app', 't', { _id: 2, tags: ['c'] });
      const err = thrown(() => s.insert('app', 't', { _id: 3, tags: ['d', 'b'] }));
      expect(err.extra?.keyValue).toEqual({ tags: 'b' });
    });

    it('finds a document once by any of its elements', () => {
      s.createIndex('app', 't', { name: 'tags_1', key: { tags: 1 } });
      s.insert('app', 't', { _id: 1, tags: ['a', 'b'] });
      s.insert('app', 't', { _id: 2, tags: ['b', 'c'] });
      expect(ids(s.scan('app', 't', { index: 'tags_1', equals: ['b'] }))).toEqual([1, 2]);
      expect(ids(s.scan('app', 't', { index: 'tags_1', range: { min: 'a', max: 'c' } }))).toEqual([1, 2]);
    });

    it('finds a document by its whole array value', () => {
      s.createIndex('app', 't', { name: 'tags_1', key: { tags: 1 } });
      s.insert('app', 't', { _id: 1, tags: ['a', 'b'] });
      s.insert('app', 't', { _id: 2, tags: [] });
      expect(ids(s.scan('app', 't', { index: 'tags_1', equals: [['a', 'b']] }))).toContain(1);
      expect(ids(s.scan('app', 't', { index: 'tags_1', equals: [[]] }))).toContain(2);
    });

    it('indexes a compound key over one array field', () => {
      s.createIndex('app', 't', { name: 'o_1_tags_1', key: { o: 1, tags: 1 }, unique: true });
      s.insert('app', 't', { _id: 1, o: 1, tags: ['a', 'b'] });
      s.insert('app', 't', { _id: 2, o: 2, tags: ['a'] });
      expect(thrown(() => s.insert('app', 't', { _id: 3, o: 1, tags: ['b'] })).extra?.keyValue).toEqual({ o: 1, tags: 'b' });
    });

    it('re-keys a document whose array changes', () => {
      s.createIndex('app', 't', { name: 'tags_1', key: { tags: 1 } });
      s.insert('app', 't', { _id: 1, tags: ['a'] });
      s.replace('app', 't', { _id: 1, tags: ['z'] });
      expect(ids(s.scan('app', 't', { index: 'tags_1', equals: ['a'] }))).toEqual([]);
      expect(ids(s.scan('app', 't', { index: 'tags_1', equals: ['z'] }))).toEqual([1]);
    });
  });

  describe('sparse', () => {
    beforeEach(() => s.createIndex('app', 's', { name: 'code_1', key: { code: 1 }, unique: true, sparse: true }));

    it('skips documents missing the field, so many may lack it', () => {
      s.insert('app', 's', { _id: 1 });
      s.insert('app', 's', { _id: 2 });
      expect(ids(s.scan('app', 's', { index: 'code_1' }))).toEqual([]);
    });

    it('still indexes an explicit null', () => {
      s.insert('app', 's', { _id: 1, code: null });
      expect(thrown(() => s.insert('app', 's', { _id: 2, code: null })).code).toBe(11000);
    });
  });

  describe('partial', () => {
    beforeEach(() =>
      s.createIndex('app', 'p', {
        name: 'email_1',
        key: { email: 1 },
        unique: true,
        partialFilterExpression: { active: { $eq: true } },
      }),
    );

    it('enforces uniqueness only among documents matching the filter', () => {
      s.insert('app', 'p', { _id: 1, email: 'x', active: true });
      s.insert('app', 'p', { _id: 2, email: 'x', active: false });
      expect(thrown(() => s.insert('app', 'p', { _id: 3, email: 'x', active: true })).code).toBe(11000);
    });

    it('indexes only matching documents', () => {
      s.insert('app', 'p', { _id: 1, email: 'x', active: true });
      s.insert('app', 'p', { _id: 2, email: 'y' });
      expect(ids(s.scan('app', 'p', { index: 'email_1' }))).toEqual([1]);
    });

    it('adds a document to the index when a replace makes it match', () => {
      s.insert('app', 'p', { _id: 1, email: 'x', active: true });
      s.insert('app', 'p', { _id: 2, email: 'x', active: false });
      expect(thrown(() => s.replace('app', 'p', { _id: 2, email: 'x', active: true })).code).toBe(11000);
    });
  });

  describe('collation', () => {
    it('strength 2 makes a unique email index case-insensitive', () => {
      s.createIndex('app', 'u', { name: 'email_1', key: { email: 1 }, unique: true, collation: { locale: 'en', strength: 2 } });
      s.insert('app', 'u', { _id: 1, email: 'Ann@X.org' });
      expect(thrown(() => s.insert('app', 'u', { _id: 2, email: 'ann@x.ORG' })).code).toBe(11000);
    });

    it('strength 2 still distinguishes accents; strength 1 does not', () => {
      s.createIndex('app', 'u2', { name: 'n_1', key: { n: 1 }, unique: true, collation: { locale: 'en', strength: 2 } });
      s.insert('app', 'u2', { _id: 1, n: 'resume' });
      s.insert('app', 'u2', { _id: 2, n: 'résumé' });
      s.createIndex('app', 'u1', { name: 'n_1', key: { n: 1 }, unique: true, collation: { locale: 'en', strength: 1 } });
      s.insert('app', 'u1', { _id: 1, n: 'resume' });
      expect(thrown(() => s.insert('app', 'u1', { _id: 2, n: 'Résumé' })).code).toBe(11000);
    });

    it('finds strings case-insensitively by equality on a collated index', () => {
      s.createIndex('app', 'u', { name: 'email_1', key: { email: 1 }, collation: { locale: 'en', strength: 2 } });
      s.insert('app', 'u', { _id: 1, email: 'ANN' });
      s.insert('app', 'u', { _id: 2, email: 'bob' });
      expect(ids(s.scan('app', 'u', { index: 'email_1', equals: ['ann'] }))).toEqual([1]);
    });

    it('an index inherits the collection\'s default collation', () => {
      s.createCollection('app', 'ci', { collation: { locale: 'en', strength: 2 } });
      s.createIndex('app', 'ci', { name: 'email_1', key: { email: 1 }, unique: true });
      s.insert('app', 'ci', { _id: 1, email: 'ANN' });
      expect(thrown(() => s.insert('app', 'ci', { _id: 2, email: 'ann' })).code).toBe(11000);
    });

    it('an explicit simple collation overrides the collection default', () => {
      s.createCollection('app', 'ci', { collation: { locale: 'en', strength: 2 } });
      s.createIndex('app', 'ci', { name: 'email_1', key: { email: 1 }, unique: true, collation: { locale: 'simple' } });
      s.insert('app', 'ci', { _id: 1, email: 'ANN' });
      s.insert('app', 'ci', { _id: 2, email: 'ann' });
      expect(s.collection('app', 'ci')!.indexes[1]!.collation).toBeUndefined();
    });

    it('without collation, case matters', () => {
      s.createIndex('app', 'u', { name: 'email_1', key: { email: 1 }, unique: true });
      s.insert('app', 'u', { _id: 1, email: 'ANN' });
      s.insert('app', 'u', { _id: 2, email: 'ann' });
      expect(s.count('app', 'u')).toBe(2);
    });
  });

  describe('scans', () => {
    beforeEach(() => {
      s.createIndex('app', 'n', { name: 'v_1', key: { v: 1 } });
      const values = [5, 'str', 1, null, 3.5, new Date(0), 10, 7];
      values.forEach((v, i) => s.insert('app', 'n', { _id: i, v }));
      s.insert('app', 'n', { _id: 100 });
    });

    it('returns equality matches for every $in value', () => {
      expect(ids(s.scan('app', 'n', { index: 'v_1', equals: [5, 10, 99] }))).toEqual([0, 6]);
    });

    it('matches null equality against null and missing', () => {
      expect(ids(s.scan('app', 'n', { index: 'v_1', equals: [null] })).sort()).toEqual([100, 3]);
    });

    it('returns a closed range in BSON order', () => {
      expect(ids(s.scan('app', 'n', { index: 'v_1', range: { min: 3, minInclusive: true, max: 7, maxInclusive: false } }))).toEqual([4, 0]);
    });

    it('honours inclusive bounds', () => {
      expect(ids(s.scan('app', 'n', { index: 'v_1', range: { min: 5, max: 7, maxInclusive: true } }))).toEqual([0, 7]);
      expect(ids(s.scan('app', 'n', { index: 'v_1', range: { min: 5, minInclusive: false, max: 7 } }))).toEqual([7]);
    });

    it('returns everything above an open-ended minimum, other types included (a superset)', () => {
      expect(ids(s.scan('app', 'n', { index: 'v_1', range: { min: 7, minInclusive: false } }))).toEqual([6, 1, 5]);
    });

    it('ranges over the _id index', () => {
      const oids = [1, 2, 3].map(() => new ObjectId());
      oids.forEach((_id) => s.insert('app', 'o', { _id }));
      expect(ids(s.scan('app', 'o', { index: '_id_', range: { min: oids[1] } }))).toEqual([oids[1], oids[2]]);
    });

    it('rejects a plan naming an unknown index', () => {
      expect(thrown(() => [...s.scan('app', 'n', { index: 'nope_1', equals: [1] })]).code).toBe(2);
    });

    it('keeps a descending index in BSON order (the caller sorts)', () => {
      s.createIndex('app', 'd', { name: 'v_-1', key: { v: -1 } });
      [3, 1, 2].forEach((v) => s.insert('app', 'd', { _id: v, v }));
      expect(ids(s.scan('app', 'd', { index: 'v_-1' }))).toEqual([1, 2, 3]);
    });
  });

  describe('createIndex / dropIndex rules', () => {
    it('creates over existing data and the new index serves scans', () => {
      s.insert('app', 'c', { _id: 1, v: 'b' });
      s.insert('app', 'c', { _id: 2, v: 'a' });
      expect(s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 } })).toBe(true);
      expect(ids(s.scan('app', 'c', { index: 'v_1' }))).toEqual([2, 1]);
    });

    it('treats an identical spec as a no-op', () => {
      s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 }, unique: true });
      expect(s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 }, unique: true, background: true })).toBe(false);
      expect(s.collection('app', 'c')!.indexes).toHaveLength(2);
    });

    it('rejects the same name with another key as IndexKeySpecsConflict (86)', () => {
      s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 } });
      expect(thrown(() => s.createIndex('app', 'c', { name: 'v_1', key: { w: 1 } })).code).toBe(86);
    });

    it('rejects the same name and key with another TTL as IndexOptionsConflict (85)', () => {
      s.createIndex('app', 'c', { name: 'at_1', key: { at: 1 }, expireAfterSeconds: 60 });
      expect(thrown(() => s.createIndex('app', 'c', { name: 'at_1', key: { at: 1 }, expireAfterSeconds: 120 })).code).toBe(85);
    });

    it('rejects the same name and key but another uniqueness as IndexKeySpecsConflict (86), as mongod >= 5', () => {
      s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 } });
      expect(thrown(() => s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 }, unique: true })).code).toBe(86);
    });

    it('rejects the same index under another name as IndexOptionsConflict (85)', () => {
      s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 } });
      const err = thrown(() => s.createIndex('app', 'c', { name: 'other', key: { v: 1 } }));
      expect(err.code).toBe(85);
      expect(err.message).toBe('Index already exists with a different name: v_1');
    });

    it('treats unique: false like an absent option', () => {
      s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 } });
      expect(s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 }, unique: false })).toBe(false);
    });

    it('allows the same key with another collation or uniqueness as separate indexes', () => {
      s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 } });
      expect(s.createIndex('app', 'c', { name: 'v_ci', key: { v: 1 }, collation: { locale: 'en', strength: 2 } })).toBe(true);
      expect(s.createIndex('app', 'c', { name: 'v_u', key: { v: 1 }, unique: true })).toBe(true);
    });

    it('creates the collection when it does not exist', () => {
      s.createIndex('app', 'fresh', { name: 'v_1', key: { v: 1 } });
      expect(s.collection('app', 'fresh')!.indexes.map((i) => i.name)).toEqual(['_id_', 'v_1']);
    });

    it('drops an index: its uniqueness no longer applies', () => {
      s.createIndex('app', 'c', { name: 'v_1', key: { v: 1 }, unique: true });
      s.insert('app', 'c', { _id: 1, v: 1 });
      s.dropIndex('app', 'c', 'v_1');
      s.insert('app', 'c', { _id: 2, v: 1 });
      expect(s.collection('app', 'c')!.indexes.map((i) => i.name)).toEqual(['_id_']);
    });

    it('rejects an array _id with InvalidIdField (53)', () => {
      expect(thrown(() => s.insert('app', 'c', { _id: [1, 2] })).code).toBe(53);
    });

    it('reports an unknown index as IndexNotFound (27)', () => {
      s.ensureCollection('app', 'c');
      expect(thrown(() => s.dropIndex('app', 'c', 'nope')).code).toBe(27);
    });

    it('refuses to drop _id_ with InvalidOptions (72)', () => {
      s.ensureCollection('app', 'c');
      const err = thrown(() => s.dropIndex('app', 'c', '_id_'));
      expect(err.code).toBe(72);
      expect(err.message).toBe('cannot drop _id index');
    });

    it('reports dropIndex on a missing collection as NamespaceNotFound (26)', () => {
      expect(thrown(() => s.dropIndex('app', 'none', 'v_1')).code).toBe(26);
    });

    it('rejects an empty key pattern as CannotCreateIndex (67)', () => {
      expect(thrown(() => s.createIndex('app', 'c', { name: 'x', key: {} })).code).toBe(67);
    });
  });
});
