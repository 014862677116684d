import fc from 'fast-check';
import mongoose, { Schema } from 'mongoose';
import { describe, expect, it, vi } from 'vitest';
import { MealMenuModel } from '../../src/menus/meal-menu.model.js';
import { AuditEventModel } from '../../src/audit/index.js';
import { pathValidator, recordValidator } from '../../src/shared/path-validator.js';

/**
 * pathValidator and recordValidator must refuse exactly what mongoose's own
 * Model.validate refuses, with the same error (paths in the same order): the
 * portions of the real menu model, the audit record, and schemas of their
 * own with an async validator that reads its context, a nested path and
 * array elements with rules of their own.
 */

/** A required, bounded path with an async validator that reads its context (both schemas below). */
const CODE_PATH = {
  type: String,
  required: true,
  maxlength: 6,
  validate: { validator: async function (this: { code?: string }, v: string) { return v === this.code && v !== 'nope'; }, message: 'not allowed' },
};

const Shapes = mongoose.model('PathValidatorShapes', new Schema({ code: CODE_PATH }));

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

  // Only the validators mongoose makes itself are run synchronously: a schema's own may be async whatever it calls itself.
  it('awaits a validator of its own that names a mongoose kind, and passes the record to an error class of its own', async () => {
    class RecordAwareError extends mongoose.Error.ValidatorError {
      constructor(properties: Record<string, unknown>, record?: unknown) {
        super({ ...properties, message: `record ${record === undefined ? 'missing' : 'given'}` });
      }
    }
    const Disguised = mongoose.model(
      'PathValidatorDisguised',
      new Schema({
        kind: { type: String, validate: { validator: async (v: string) => v === 'ok', type: 'enum', message: 'not ok' } },
        name: { type: String, required: { isRequired: true, ErrorConstructor: RecordAwareError } as unknown as boolean },
      }),
    );
    for (const [path, value] of [['kind', 'no'], ['kind', 'ok'], ['name', ''], ['name', 'x']] as const) {
      const expected = await outcome(() => Disguised.validate({ [path]: value }, [path]));
      expect(await outcome(() => pathValidator(Disguised, path)(value))).toEqual(expected);
    }
  });

  it('takes only a top-level path the schema has', () => {
    expect(() => pathValidator(MealMenuModel, 'items.name')).toThrow('top-level');
    expect(() => pathValidator(MealMenuModel, 'nothing')).toThrow('no path nothing');
  });
});

const Records = mongoose.model(
  'RecordValidatorShapes',
  new Schema({
    code: CODE_PATH,
    nested: { kind: { type: String, enum: ['a', 'b'], required: true }, note: String },
    tags: [{ type: String, enum: ['x', 'y'] }],
    count: { type: Number, min: 0 },
  }),
);

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant(undefined), fc.constant(null));

describe('recordValidator', () => {
  it('refuses and admits records of a schema with nested paths, array elements and an async validator as Model.validate does', async () => {
    const check = recordValidator(Records);
    const record = fc.record({
      code: maybe(fc.oneof(fc.constantFrom('ok', 'nope', 'toolong!', ''), fc.string({ maxLength: 8 }))),
      nested: maybe(fc.record({ kind: maybe(fc.constantFrom('a', 'b', 'c')), note: fc.option(fc.string(), { nil: undefined }) })),
      tags: fc.option(fc.array(maybe(fc.constantFrom('x', 'y', 'z')), { maxLength: 4 }), { nil: undefined }),
      count: fc.option(fc.integer({ min: -3, max: 3 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(record, async (value) => {
        expect(await outcome(() => check(value))).toEqual(await outcome(() => Records.validate(value)));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses and admits audit records as the audit model's Model.validate does", async () => {
    const check = recordValidator(AuditEventModel);
    const text = fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 12 }));
    const record = fc.record(
      {
        actor: fc.option(fc.record({ type: fc.option(fc.constantFrom('user', 'apiKey', 'robot'), { nil: undefined }), id: fc.option(text, { nil: undefined }) }), { nil: undefined }),
        tenant_id: fc.option(text),
        action: fc.option(text, { nil: undefined }),
        target: fc.option(fc.record({ type: fc.option(text, { nil: undefined }), id: fc.option(text) }), { nil: undefined }),
        changes: fc.option(fc.array(text, { maxLength: 3 }), { nil: undefined }),
        requestId: fc.option(text, { nil: undefined }),
        ip: fc.option(text, { nil: undefined }),
        at: fc.option(fc.date({ noInvalidDate: true }), { nil: undefined }),
        outcome: fc.option(fc.constantFrom('success', 'failure', 'maybe'), { nil: undefined }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(record, async (value) => {
        expect(await outcome(() => check(value))).toEqual(await outcome(() => AuditEventModel.validate(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('checks an audit record with no promise per path: its validators are all mongoose\'s own', async () => {
    const check = recordValidator(AuditEventModel);
    const doValidate = vi.spyOn(mongoose.SchemaType.prototype as unknown as { doValidate(): Promise<void> }, 'doValidate');
    try {
      const record = { actor: { type: 'user', id: 'u1' }, tenant_id: 't1', action: 'menus.update', target: { type: 'MealMenu', id: null }, changes: ['name'], requestId: 'r1', ip: '', at: new Date(), outcome: 'success' };
      await check(record);
      await expect(check({ ...record, outcome: 'maybe' })).rejects.toThrow('outcome');
      expect(doValidate).not.toHaveBeenCalled();
    } finally {
      doValidate.mockRestore();
    }
  });

  it('takes only paths of plain values, nested objects and arrays of them', () => {
    const WithSubdocument = mongoose.model('RecordValidatorSubdocument', new Schema({ inner: new Schema({ a: String }), list: [[String]] }));
    expect(() => recordValidator(WithSubdocument, ['inner'])).toThrow('sub-documents');
    expect(() => recordValidator(WithSubdocument, ['list'])).toThrow('arrays of arrays');
    expect(() => recordValidator(Records, ['nothing'])).toThrow('no path nothing');
  });
});
