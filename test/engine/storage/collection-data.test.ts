import { describe, expect, it } from 'vitest';
import { encodeStoredDocument } from '../../../src/engine/storage/bson-codec.js';
import { CollectionData, idKeyOf } from '../../../src/engine/storage/collection-data.js';
import { ID_INDEX } from '../../../src/engine/storage/index-spec-rules.js';

const compound = { v: 2, key: { a: 1, b: 1 }, name: 'a_1_b_1' };

describe('collection data: documents stored before a rule existed', () => {
  it('restores a document with parallel arrays under a compound index and can still remove it', () => {
    const data = new CollectionData('app.c', [ID_INDEX, compound]);
    data.restore([encodeStoredDocument({ _id: 1, a: [1, 2], b: [3, 4] })]);
    expect(data.remove(idKeyOf(1))).toBe(true);
    expect(data.count).toBe(0);
  });

  it('refuses a new document with parallel arrays under a compound index (171)', () => {
    const data = new CollectionData('app.c', [ID_INDEX, compound]);
    expect(() => data.insert({ _id: 1, a: [1, 2], b: [3, 4] })).toThrow(expect.objectContaining({ code: 171 }));
    expect(data.count).toBe(0);
  });
});
