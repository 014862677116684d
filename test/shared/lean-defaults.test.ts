import fc from 'fast-check';
import mongoose, { Schema, Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { MealMenuModel } from '../../src/menus/meal-menu.model.js';
import { leanDefaults } from '../../src/shared/lean-defaults.js';

/**
 * leanDefaults must answer exactly what mongoose's own Model.applyDefaults
 * answers for a lean record, on the real menu model and on a schema with
 * the shapes the menu lacks (nested paths, a single sub-document, function
 * and null defaults, a path without a default under a nested parent).
 */

const Dish = new Schema({ name: String, tags: { type: [String], default: ['house'] }, note: { type: String, default: null } }, { _id: false });
const Shapes = mongoose.model(
  'LeanDefaultsShapes',
  new Schema({
    title: String,
    count: { type: Number, default: 7 },
    label: { type: String, default: () => 'made' },
    gone: { type: Date, default: null },
    nested: { deep: { type: String, default: 'deep' }, plain: Number },
    onlyPlain: { inner: String },
    main: { type: Dish },
    dishes: { type: [Dish] },
  }),
);

/** A record of optional fields: a key left out of the object is a missing field. */
const maybe = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined, freq: 2 });
const pruned = (record: Record<string, unknown>) => JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
const dish = fc.record({ name: maybe(fc.string()), tags: maybe(fc.array(fc.string(), { maxLength: 2 })), note: maybe(fc.constant(null)) });
const shapes = fc.record({
  title: maybe(fc.string()),
  count: maybe(fc.integer()),
  label: maybe(fc.string()),
  gone: maybe(fc.constant(null)),
  nested: maybe(fc.record({ deep: maybe(fc.string()), plain: maybe(fc.integer()) })),
  onlyPlain: maybe(fc.record({ inner: maybe(fc.string()) })),
  main: maybe(fc.oneof(dish, fc.constant(null))),
  dishes: maybe(fc.array(dish, { maxLength: 3 })),
});
const menus = fc.record({
  name: maybe(fc.string()),
  description: maybe(fc.oneof(fc.string(), fc.constant(null))),
  items: maybe(fc.array(fc.record({ name: maybe(fc.string()), description: maybe(fc.string()), allergens: maybe(fc.array(fc.string(), { maxLength: 2 })) }), { maxLength: 3 })),
  estimatedPortions: maybe(fc.nat()),
  deletedAt: maybe(fc.constant(null)),
});

function sameAsMongoose(model: mongoose.Model<any>, records: fc.Arbitrary<Record<string, unknown>>): void {
  const fill = leanDefaults<Record<string, unknown>>(model.schema);
  fc.assert(
    fc.property(records, (generated) => {
      // With an _id: mongoose's default for a missing one is a fresh ObjectId, never equal twice.
      const record = { _id: new Types.ObjectId(), ...pruned(generated) };
      const ours = fill(structuredClone(record));
      const theirs = model.applyDefaults(structuredClone(record));
      expect(ours).toEqual(theirs);
    }),
    { numRuns: 300 },
  );
}

describe('leanDefaults', () => {
  it("fills a lean menu as mongoose's applyDefaults does", () => {
    sameAsMongoose(MealMenuModel, menus);
  });

  it("fills nested paths, sub-documents and function or null defaults as mongoose's applyDefaults does", () => {
    sameAsMongoose(Shapes, shapes);
  });

  it('gives every record its own default array, not one shared array', () => {
    const fill = leanDefaults<{ items?: unknown[] }>(MealMenuModel.schema);
    const [a, b] = [fill({}), fill({})];
    expect(a.items).toEqual([]);
    expect(a.items).not.toBe(b.items);
  });
});
