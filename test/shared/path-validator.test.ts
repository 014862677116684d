import fc from 'fast-check';
import mongoose, { Schema } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { MealMenuModel } from '../../src/menus/meal-menu.model.js';
import { pathValidator } from '../../src/shared/path-validator.js';

/**
 * pathValidator must refuse exactly what mongoose's own Model.validate
 * refuses for that one path, with the same error: the portions of the real
 * menu model, and a path of a schema of its own with an async validator
 * that reads its context.
 */

const Shapes = mongoose.model(
  'PathValidatorShapes',
  new Schema({
    code: {
      type: String,
      required: true,
      maxlength: 6,
      validate: { validator: async function (this: { code?: string }, v: string) { return v === this.code && v !== 'nope'; }, message: 'not allowed' },
    },
  }),
);

/** What a caller sees of a validation outcome: nothing, or the error's message and each path's kind, message and value. */
async function outcome(check: () => Promise<unknown>) {
  try {
    await check();
    return 'valid';
  } catch (err) {
    const error = err as mongoose.Error.ValidationError;
    return {
      name: error.name,
      message: error.message,
      errors: Object.fromEntries(Object.entries(error.errors).map(([path, e]) => [path, { kind: (e as mongoose.Error.ValidatorError).kind, message: e.message, value: e.value }])),
    };
  }
}

describe('pathValidator', () => {
  const portions = pathValidator(MealMenuModel, 'estimatedPortions');
  const code = pathValidator(Shapes, 'code');

  it('refuses and admits the menu portions as Model.validate does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.constant(null), fc.constant(undefined)), async (value) => {
        const expected = await outcome(() => MealMenuModel.validate({ estimatedPortions: value }, ['estimatedPortions']));
        expect(await outcome(() => portions(value))).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a negative count and a fraction with the rule that failed', async () => {
    expect(await outcome(() => portions(-1))).toMatchObject({ errors: { estimatedPortions: { kind: 'min' } } });
    expect(await outcome(() => portions(1.5))).toMatchObject({ errors: { estimatedPortions: { message: 'must be an integer' } } });
  });

  it('answers as Model.validate for required, length and an async validator reading its context', async () => {
    for (const value of ['ok', 'nope', 'toolong!', '', null, undefined]) {
      const expected = await outcome(() => Shapes.validate({ code: value }, ['code']));
      expect(await outcome(() => code(value))).toEqual(expected);
    }
  });

  it('takes only a top-level path the schema has', () => {
    expect(() => pathValidator(MealMenuModel, 'items.name')).toThrow('top-level');
    expect(() => pathValidator(MealMenuModel, 'nothing')).toThrow('no path nothing');
  });
});
