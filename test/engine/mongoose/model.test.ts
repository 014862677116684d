import { getModelForClass, modelOptions, prop, type Ref, Severity } from '@typegoose/typegoose';
import { TimeStamps } from '@typegoose/typegoose/lib/defaultClasses.js';
import mongoose from 'mongoose';
import { MongoServerError } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { mongooseOnEngine } from '../support/mongoose-on-engine.js';

/**
 * Mongoose 9 and Typegoose 13 models running on the engine: the features the
 * admin API relies on, end to end through the driver.
 */

@modelOptions({ schemaOptions: { timestamps: true }, options: { allowMixed: Severity.ALLOW } })
class Author extends TimeStamps {
  @prop({ required: true, unique: true })
  public email!: string;

  @prop()
  public name?: string;

  @prop({ default: 0 })
  public posts!: number;
}

@modelOptions({ schemaOptions: { timestamps: true } })
class Post {
  @prop({ required: true })
  public title!: string;

  @prop({ ref: () => Author })
  public author?: Ref<Author>;
}

@modelOptions({
  schemaOptions: { collation: { locale: 'en', strength: 2 } },
})
class Tag {
  @prop({ required: true })
  public label!: string;
}

const conn = mongooseOnEngine('mongoose_models');

function models() {
  const opts = { existingConnection: conn };
  return {
    AuthorModel: getModelForClass(Author, opts),
    PostModel: getModelForClass(Post, opts),
    TagModel: getModelForClass(Tag, opts),
  };
}

beforeAll(async () => {
  const { TagModel } = models();
  // A case-insensitive unique index (collation strength 2), as the admin API declares for names.
  TagModel.schema.index({ label: 1 }, { unique: true, collation: { locale: 'en', strength: 2 } });
  await Promise.all(Object.values(models()).map((m) => m.init()));
});

describe('mongoose models on the engine', () => {
  it('saves a document and sets timestamps', async () => {
    const { AuthorModel } = models();
    const a = await AuthorModel.create({ email: 'ts@x', name: 'T' });
    expect(a.createdAt).toBeInstanceOf(Date);
    expect(a.updatedAt).toBeInstanceOf(Date);
  });

  it('rejects a duplicate on a unique index with E11000 (code 11000)', async () => {
    const { AuthorModel } = models();
    await AuthorModel.create({ email: 'dup@x' });
    const err = await AuthorModel.create({ email: 'dup@x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect((err as MongoServerError).code).toBe(11000);
  });

  it("findOneAndUpdate with returnDocument 'after' returns the updated document and bumps updatedAt", async () => {
    const { AuthorModel } = models();
    const a = await AuthorModel.create({ email: 'fou@x' });
    const updated = await AuthorModel.findOneAndUpdate({ _id: a._id }, { $inc: { posts: 2 } }, { returnDocument: 'after' });
    expect(updated?.posts).toBe(2);
    expect(updated!.updatedAt!.getTime()).toBeGreaterThanOrEqual(a.updatedAt!.getTime());
  });

  it('findOneAndUpdate upsert applies $setOnInsert timestamps once', async () => {
    const { AuthorModel } = models();
    const first = await AuthorModel.findOneAndUpdate({ email: 'up@x' }, { name: 'U' }, { upsert: true, returnDocument: 'after' });
    const second = await AuthorModel.findOneAndUpdate({ email: 'up@x' }, { name: 'V' }, { returnDocument: 'after' });
    expect(second!.createdAt!.getTime()).toBe(first!.createdAt!.getTime());
    expect(second!.name).toBe('V');
  });

  it('countDocuments counts with a filter', async () => {
    const { AuthorModel } = models();
    await AuthorModel.create([{ email: 'c1@x', name: 'count' }, { email: 'c2@x', name: 'count' }]);
    expect(await AuthorModel.countDocuments({ name: 'count' })).toBe(2);
  });

  it('populate resolves a reference', async () => {
    const { AuthorModel, PostModel } = models();
    const a = await AuthorModel.create({ email: 'pop@x', name: 'Pop' });
    await PostModel.create({ title: 'hello', author: a._id });
    const post = await PostModel.findOne({ title: 'hello' }).populate('author').orFail();
    expect((post.author as unknown as Author).name).toBe('Pop');
  });

  it('lean returns plain objects', async () => {
    const { AuthorModel } = models();
    await AuthorModel.create({ email: 'lean@x', name: 'L' });
    const doc = await AuthorModel.findOne({ email: 'lean@x' }).lean().orFail();
    expect(doc.name).toBe('L');
    expect(doc).not.toBeInstanceOf(mongoose.Document);
  });

  it('a cursor iterates over more than one batch (getMore)', async () => {
    const { PostModel } = models();
    await PostModel.insertMany(Array.from({ length: 250 }, (_, i) => ({ title: `bulk-${i}` })));
    let seen = 0;
    for await (const _ of PostModel.find({ title: /^bulk-/ }).cursor()) seen++;
    expect(seen).toBe(250);
  });

  it('a unique index with collation strength 2 rejects a case variant', async () => {
    const { TagModel } = models();
    await TagModel.create({ label: 'Admin' });
    const err = await TagModel.create({ label: 'ADMIN' }).catch((e: unknown) => e);
    expect((err as MongoServerError).code).toBe(11000);
  });

  it('the schema collation makes queries case-insensitive', async () => {
    const { TagModel } = models();
    await TagModel.create({ label: 'Editor' });
    expect(await TagModel.countDocuments({ label: 'editor' })).toBe(1);
  });

  it('syncIndexes finds the declared indexes in place and drops nothing', async () => {
    const { AuthorModel, TagModel } = models();
    expect([await AuthorModel.syncIndexes(), await TagModel.syncIndexes()]).toEqual([[], []]);
  });

  it('syncIndexes drops an index the schema no longer declares', async () => {
    const { PostModel } = models();
    await PostModel.collection.createIndex({ stale: 1 });
    expect(await PostModel.syncIndexes()).toEqual(['stale_1']);
  });

  it('deleteOne and updateMany report their counts', async () => {
    const { AuthorModel } = models();
    await AuthorModel.create([{ email: 'm1@x', name: 'many' }, { email: 'm2@x', name: 'many' }]);
    const upd = await AuthorModel.updateMany({ name: 'many' }, { $set: { posts: 9 } });
    const del = await AuthorModel.deleteOne({ email: 'm1@x' });
    expect([upd.modifiedCount, del.deletedCount]).toEqual([2, 1]);
  });
});
