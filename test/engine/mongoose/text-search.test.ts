import { Schema } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { mongooseOnEngine } from '../support/mongoose-on-engine.js';

/**
 * A mongoose model with a weighted text index: syncIndexes creates it once
 * (and then finds it equal to the schema's, so a second sync changes
 * nothing), and a `$text` search sorted and scored by textScore ranks the
 * documents by mongod's formula.
 */

const conn = mongooseOnEngine('mongoose_text_search');

interface Article {
  title: string;
  body: string;
}

const schema = new Schema<Article>({ title: String, body: String }, { autoIndex: false });
schema.index({ title: 'text', body: 'text' }, { weights: { title: 10, body: 2 }, name: 'article_text' });

const Article = () => conn.models.Article ?? conn.model<Article>('Article', schema);

describe('a mongoose model with a weighted text index', () => {
  it('syncIndexes creates the text index once; a second sync finds nothing to change', async () => {
    const M = Article();
    await M.createCollection();
    expect(await M.syncIndexes()).toEqual([]);
    const text = (await M.listIndexes()).find((ix) => ix.name === 'article_text');
    expect(text).toMatchObject({
      key: { _fts: 'text', _ftsx: 1 },
      weights: { body: 2, title: 10 },
      default_language: 'english',
      language_override: 'language',
      textIndexVersion: 3,
    });
    expect(await M.diffIndexes()).toEqual({ toDrop: [], toCreate: [] });
    expect(await M.syncIndexes()).toEqual([]);
    expect((await M.listIndexes()).map((ix) => ix.name)).toEqual(['_id_', 'article_text']);
  });

  it('find with $text, the score projected and sorted by textScore', async () => {
    const M = Article();
    await M.create([
      { title: 'Brewing coffee at home', body: 'Grind the beans fresh' },
      { title: 'Tea ceremonies', body: 'Coffee drinkers may prefer espresso; coffee is bitter' },
      { title: 'Gardening', body: 'Roses and tulips' },
    ]);
    const found = await M.find({ $text: { $search: 'coffee' } }, { score: { $meta: 'textScore' } })
      .sort({ score: { $meta: 'textScore' } })
      .lean<Array<Article & { score: number }>>();
    expect(found.map((d) => d.title)).toEqual(['Brewing coffee at home', 'Tea ceremonies']);
    // title "Brewing coffee at home" (brew, coffe, home): 10 * (0.5 / 3 + 0.5);
    // body "Coffee drinkers may prefer espresso; coffee is bitter" (coffe x2 of 7 words): 2 * 1.5 * (0.5 * 2 / 7 + 0.5).
    expect(found.map((d) => d.score)).toEqual([10 * (0.5 / 3 + 0.5), 2 * 1.5 * ((0.5 * 2) / 7 + 0.5)]);
  });

  it('a search the index cannot answer is a server error with mongod\'s code', async () => {
    const Plain = conn.models.Plain ?? conn.model('Plain', new Schema({ title: String }));
    await Plain.create({ title: 'coffee' });
    await expect(Plain.find({ $text: { $search: 'coffee' } })).rejects.toMatchObject({ code: 27 });
  });
});
