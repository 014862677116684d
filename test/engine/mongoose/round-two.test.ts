import { Schema } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { mongooseOnEngine } from '../support/mongoose-on-engine.js';

/**
 * Mongoose features that reached the engine in forms it used to refuse or
 * answer differently from mongod: ICU collation locales, empty operator
 * documents, `$pull` with `$or`, map paths, hinted reads and natural order.
 */

const conn = mongooseOnEngine('mongoose_round_two');
const sent: Array<{ method: string; args: unknown[] }> = [];

beforeAll(async () => {
  conn.set('debug', (_coll: string, method: string, ...args: unknown[]) => sent.push({ method, args }));
});

describe('collation locales as MongoDB writes them', () => {
  const Word = () =>
    conn.models.Word ??
    conn.model('Word', new Schema({ w: String }, { collation: { locale: 'en_US', strength: 2 }, autoIndex: false }));

  it('a schema collation en_US makes find and aggregate case-insensitive', async () => {
    const M = Word();
    await M.init();
    await M.create([{ w: 'Apple' }, { w: 'apple' }, { w: 'Banana' }]);
    expect(await M.countDocuments({ w: 'APPLE' })).toBe(2);
    const sorted = await M.find().sort({ w: 1 }).collation({ locale: 'fr_CA' }).lean();
    expect(sorted.map((d) => d.w)).toEqual(['apple', 'Apple', 'Banana']);
    const grouped = await M.aggregate([{ $match: { w: 'apple' } }, { $count: 'n' }]).collation({ locale: 'de@collation=phonebook', strength: 1 });
    expect(grouped).toEqual([{ n: 2 }]);
  });

  it('an unknown locale is a BadValue server error', async () => {
    await expect(Word().find().collation({ locale: 'en-US' })).rejects.toMatchObject({ code: 2 });
  });
});

describe('minimised updates and $pull with $or', () => {
  const Item = () =>
    conn.models.Item ??
    conn.model('Item', new Schema({ name: String, n: Number, tags: [{ k: String, v: Number }] }, { timestamps: false }));

  it("an empty $set through the model's collection and beside another operator changes nothing else", async () => {
    const M = Item();
    const doc = await M.create({ name: 'a', n: 1 });
    sent.length = 0;
    // Mongoose 9's model API drops an empty update itself; its collection layer passes one through.
    const direct = await M.collection.updateOne({ _id: doc._id }, { $set: {} });
    await M.updateOne({ _id: doc._id }, { $set: {}, $inc: { n: 1 } });
    expect(direct.matchedCount).toBe(1);
    expect(direct.modifiedCount).toBe(0);
    expect(await M.findById(doc._id).lean()).toMatchObject({ name: 'a', n: 2 });
    // The empty operator document really reached the server.
    expect(JSON.stringify(sent)).toContain('"$set":{}');
  });

  it('$pull with $or removes matching subdocuments', async () => {
    const M = Item();
    const doc = await M.create({ name: 'b', tags: [{ k: 'x', v: 1 }, { k: 'y', v: 2 }, { k: 'z', v: 3 }] });
    await M.updateOne({ _id: doc._id }, { $pull: { tags: { $or: [{ k: 'x' }, { v: 3 }] } } });
    const after = await M.findById(doc._id).lean();
    expect((after!.tags as Array<{ k: string }>).map((t) => t.k)).toEqual(['y']);
  });
});

describe('map paths', () => {
  const Profile = () =>
    conn.models.Profile ??
    conn.model(
      'Profile',
      new Schema({
        scores: { type: Map, of: Number },
        sections: { type: Map, of: new Schema({ title: String, items: [Number] }, { _id: false }) },
      }),
    );

  it('map keys set and nested arrays pushed through the document API persist', async () => {
    const M = Profile();
    const doc = await M.create({ scores: { a: 1 }, sections: { intro: { title: 'Hi', items: [1] } } });
    doc.scores!.set('b', 2);
    doc.sections!.get('intro')!.items.push(2, 3);
    await doc.save();
    const after = await M.findById(doc._id).lean();
    expect(after!.scores).toEqual({ a: 1, b: 2 });
    expect(after!.sections!.intro!.items).toEqual([1, 2, 3]);
  });

  it("an update naming the schema's '$*' path stores that key, as mongod does", async () => {
    const M = Profile();
    const doc = await M.create({ sections: { intro: { title: 'Hi', items: [] } } });
    await M.updateOne({ _id: doc._id }, { $set: { 'sections.$*.title': 'all' } }, { strict: false });
    const raw = await M.collection.findOne({ _id: doc._id });
    expect(raw!.sections).toEqual({ intro: { title: 'Hi', items: [] }, '$*': { title: 'all' } });
  });
});

describe('hints and natural order', () => {
  const Score = () =>
    conn.models.Score ?? conn.model('Score', new Schema({ n: { type: Number, index: true }, label: String }));

  it('a hinted query answers in that index order; an unhinted one in insertion order', async () => {
    const M = Score();
    await M.init();
    await M.create([{ n: 3, label: 'c' }, { n: 1, label: 'a' }, { n: 2, label: 'b' }]);
    expect((await M.find().lean()).map((d) => d.n)).toEqual([3, 1, 2]);
    expect((await M.find().hint({ n: 1 }).lean()).map((d) => d.n)).toEqual([1, 2, 3]);
    expect((await M.find().sort({ $natural: -1 }).lean()).map((d) => d.n)).toEqual([2, 1, 3]);
  });
});
