import { Schema } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { mongooseOnEngine } from '../support/mongoose-on-engine.js';

/**
 * A mongoose model whose collection carries a `$jsonSchema` validator: the
 * server refuses what the model lets through, with mongod's 121 and errInfo,
 * and the model can query by schema.
 */

const conn = mongooseOnEngine('mongoose_json_schema');

/** The server-side rule is stricter than the model: a dish's price must be a positive number. */
const DISH_SCHEMA = {
  bsonType: 'object',
  required: ['name', 'price'],
  properties: {
    name: { bsonType: 'string', minLength: 2 },
    price: { bsonType: ['int', 'double', 'decimal'], exclusiveMinimum: true, minimum: 0, description: 'a positive price' },
    tags: { bsonType: 'array', items: { bsonType: 'string' }, uniqueItems: true },
  },
};

// autoCreate off: the collection is created by the test, with its validator.
const Dish = () =>
  conn.models.Dish ??
  conn.model('Dish', new Schema({ name: String, price: Number, tags: [String] }, { autoCreate: false, autoIndex: false }));

describe('a $jsonSchema validator under a mongoose model', () => {
  beforeAll(async () => {
    await Dish().createCollection({ validator: { $jsonSchema: DISH_SCHEMA }, validationAction: 'error' });
  });

  it('is listed with the collection', async () => {
    const [info] = await conn.db!.listCollections({ name: Dish().collection.collectionName }, { nameOnly: false }).toArray();
    expect(info?.options).toEqual({ validator: { $jsonSchema: DISH_SCHEMA }, validationAction: 'error' });
  });

  it('lets a valid document be saved', async () => {
    const saved = await Dish().create({ name: 'Soup', price: 4.5, tags: ['hot'] });
    expect(await Dish().countDocuments({ _id: saved._id })).toBe(1);
  });

  it('refuses a save the model accepts, with code 121 and mongod errInfo', async () => {
    const Model = Dish();
    const dish = new Model({ name: 'Tea', price: 0 });
    const err = (await dish.save().catch((e: unknown) => e)) as { code?: number; errInfo?: unknown };
    expect(err.code).toBe(121);
    expect(err.errInfo).toEqual({
      failingDocumentId: dish._id,
      details: {
        operatorName: '$jsonSchema',
        schemaRulesNotSatisfied: [
          {
            operatorName: 'properties',
            propertiesNotSatisfied: [
              {
                propertyName: 'price',
                description: 'a positive price',
                details: [
                  { operatorName: 'minimum', specifiedAs: { minimum: 0, exclusiveMinimum: true }, reason: 'comparison failed', consideredValue: 0 },
                ],
              },
            ],
          },
        ],
      },
    });
    expect(await Dish().countDocuments({ name: 'Tea' })).toBe(0);
  });

  it('refuses an update that breaks the schema and keeps the document', async () => {
    const dish = await Dish().create({ name: 'Cake', price: 3 });
    await expect(Dish().updateOne({ _id: dish._id }, { $set: { tags: ['sweet', 'sweet'] } })).rejects.toMatchObject({ code: 121 });
    await expect(Dish().findOneAndUpdate({ _id: dish._id }, { $unset: { price: 1 } })).rejects.toMatchObject({ code: 121 });
    expect(await Dish().findById(dish._id).lean()).toMatchObject({ name: 'Cake', price: 3 });
  });

  it('finds by $jsonSchema through the model', async () => {
    await Dish().create([{ name: 'Bread', price: 2, tags: ['baked'] }, { name: 'Pie', price: 6 }]);
    const withTags = await Dish()
      .find({ $jsonSchema: { required: ['tags'], properties: { tags: { minItems: 1 } } } })
      .sort({ name: 1 })
      .lean();
    // Mongoose saves an empty `tags` array for documents created without tags.
    expect(withTags.map((d) => d.name)).toEqual(['Bread', 'Soup']);
    const cheap = await Dish().countDocuments({ $jsonSchema: { properties: { price: { maximum: 3 } } } });
    expect(cheap).toBe(2);
  });
});
