import { Binary, BSONRegExp, Decimal128, Long, ObjectId, Timestamp, type Db, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { restarts } from '../support/restarts.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * `$jsonSchema` as a query operator (keyword by keyword over every BSON type,
 * and mongod's refusals) and as a collection validator (levels, actions,
 * bypass, and the errInfo mongod 7.0 gives a DocumentValidationFailure).
 */

/** One document per BSON type in `a`, plus one without `a` (_id 13). */
const TYPED: Document[] = [
  { _id: 1, a: 1 },
  { _id: 2, a: 2.5 },
  { _id: 3, a: Long.fromNumber(3) },
  { _id: 4, a: Decimal128.fromString('4.5') },
  { _id: 5, a: 'five' },
  { _id: 6, a: [1, 2, 2] },
  { _id: 7, a: { b: 1 } },
  { _id: 8, a: null },
  { _id: 9, a: true },
  { _id: 10, a: new Date(0) },
  { _id: 11, a: new ObjectId('64b7f0c2a1b2c3d4e5f60718') },
  { _id: 12, a: new Binary(Buffer.from('hi')) },
  { _id: 13 },
  { _id: 14, a: new BSONRegExp('re') },
  { _id: 15, a: new Timestamp({ t: 1, i: 1 }) },
];
const ALL = TYPED.map((d) => d._id as number);
const except = (...ids: number[]) => ALL.filter((id) => !ids.includes(id));

/** The sorted `_id`s a filter finds. */
async function ids(c: LooseCollection, filter: Document): Promise<unknown[]> {
  return (await c.find(filter, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map((d) => d._id);
}
const schemaIds = (c: LooseCollection, schema: Document) => ids(c, { $jsonSchema: schema });
const onA = (c: LooseCollection, a: Document) => schemaIds(c, { properties: { a } });

/** A typed-seed case: the ids a schema finds. */
function typed(name: string, schema: Document, expected: number[]): CompatCase {
  return { name, seed: TYPED, run: (c) => schemaIds(c, schema), expected };
}

/** A refusal: the schema, used in find, fails with mongod's code (seeded: the engine parses no filter for a missing collection). */
function refused(name: string, schema: unknown, code: number): CompatCase {
  return { name, seed: [{ _id: 1 }], run: (c) => c.find({ $jsonSchema: schema }).toArray(), code };
}

const bsonTypeCases: CompatCase[] = [
  {
    name: 'bsonType: every alias matches its own type (and a missing property)',
    seed: TYPED,
    run: async (c) => {
      const out: Record<string, unknown[]> = {};
      for (const t of ['int', 'double', 'long', 'decimal', 'number', 'string', 'array', 'object', 'null', 'bool', 'date', 'objectId', 'binData', 'regex', 'timestamp']) {
        out[t] = (await onA(c, { bsonType: t })).filter((id) => id !== 13);
      }
      return out;
    },
    expected: {
      int: [1], double: [2], long: [3], decimal: [4], number: [1, 2, 3, 4], string: [5], array: [6], object: [7],
      null: [8], bool: [9], date: [10], objectId: [11], binData: [12], regex: [14], timestamp: [15],
    },
  },
  typed('bsonType: an array of aliases', { properties: { a: { bsonType: ['int', 'string'] } } }, [1, 5, 13]),
  typed('bsonType with required: a missing property fails', { required: ['a'], properties: { a: { bsonType: 'int' } } }, [1]),
  {
    name: 'type: JSON types (number covers every numeric BSON type)',
    seed: TYPED,
    run: async (c) => ({
      number: await onA(c, { type: 'number' }),
      boolean: await onA(c, { type: 'boolean' }),
      object: await onA(c, { type: 'object' }),
      list: await onA(c, { type: ['string', 'null'] }),
    }),
    expected: { number: [1, 2, 3, 4, 13], boolean: [9, 13], object: [7, 13], list: [5, 8, 13] },
  },
  typed('a top-level bsonType object matches every document', { bsonType: 'object' }, ALL),
  typed('a top-level type other than object matches nothing', { bsonType: 'string' }, []),
  refused("type 'integer' is refused (FailedToParse)", { properties: { a: { type: 'integer' } } }, 9),
  refused('type with a BSON alias is an unknown alias (BadValue)', { properties: { a: { type: 'int' } } }, 2),
  refused('bsonType with an unknown alias is BadValue', { properties: { a: { bsonType: 'integerish' } } }, 2),
  refused('bsonType as a number is TypeMismatch', { properties: { a: { bsonType: 16 } } }, 14),
  refused('type and bsonType together are FailedToParse', { properties: { a: { type: 'string', bsonType: 'string' } } }, 9),
  refused('an empty type list is FailedToParse', { properties: { a: { bsonType: [] } } }, 9),
];

const scalarCases: CompatCase[] = [
  typed('minimum only judges numbers', { properties: { a: { minimum: 2 } } }, except(1)),
  typed('maximum with exclusiveMaximum', { properties: { a: { maximum: 3, exclusiveMaximum: true } } }, except(3, 4)),
  typed('minimum with exclusiveMinimum false is inclusive', { properties: { a: { minimum: 3, exclusiveMinimum: false } } }, except(1, 2)),
  typed('multipleOf over int, double, long and decimal', { properties: { a: { multipleOf: 1.5 } } }, except(1, 2)),
  typed('maxLength only judges strings', { properties: { a: { maxLength: 3 } } }, except(5)),
  typed('minLength counts characters', { properties: { a: { minLength: 4 } } }, ALL),
  typed('pattern only judges strings', { properties: { a: { pattern: '^x' } } }, except(5)),
  typed('a top-level minimum has no effect', { minimum: 100 }, ALL),
  {
    name: 'minLength and maxLength count code points, not UTF-16 units',
    seed: [{ _id: 1, s: '\u{1F600}\u{1F600}' }, { _id: 2, s: 'abc' }],
    run: (c) => schemaIds(c, { properties: { s: { maxLength: 2 } } }),
    expected: [1],
  },
  refused('minimum must be a number', { properties: { a: { minimum: 'x' } } }, 14),
  refused('exclusiveMinimum needs minimum', { properties: { a: { exclusiveMinimum: true } } }, 9),
  refused('exclusiveMaximum must be a boolean', { properties: { a: { maximum: 1, exclusiveMaximum: 'yes' } } }, 14),
  refused('multipleOf must be positive', { properties: { a: { multipleOf: 0 } } }, 9),
  refused('multipleOf must be a number', { properties: { a: { multipleOf: 'x' } } }, 14),
  refused('minLength must be a non-negative integer', { properties: { a: { minLength: -1 } } }, 9),
  refused('maxLength must be integral', { properties: { a: { maxLength: 1.5 } } }, 9),
  refused('pattern must be a string', { properties: { a: { pattern: 1 } } }, 14),
];

const arrayCases: CompatCase[] = [
  typed('minItems only judges arrays', { properties: { a: { minItems: 4 } } }, except(6)),
  typed('maxItems', { properties: { a: { maxItems: 2 } } }, except(6)),
  typed('uniqueItems finds the repeated 2', { properties: { a: { uniqueItems: true } } }, except(6)),
  typed('items as one schema: every element', { properties: { a: { items: { bsonType: 'int' } } } }, ALL),
  typed('items as one schema: a failing element', { properties: { a: { items: { minimum: 2 } } } }, except(6)),
  typed('items as a list of schemas, by position', { properties: { a: { items: [{ bsonType: 'int' }, { bsonType: 'string' }] } } }, except(6)),
  typed('additionalItems false after an items list', { properties: { a: { items: [{}, {}], additionalItems: false } } }, except(6)),
  typed('additionalItems without items has no effect', { properties: { a: { additionalItems: false } } }, ALL),
  typed('additionalItems as a schema', { properties: { a: { items: [{}], additionalItems: { minimum: 2 } } } }, ALL),
  {
    name: 'uniqueItems compares sub-documents without regard to field order, numbers by value',
    seed: [
      { _id: 1, a: [{ x: 1, y: 2 }, { y: 2, x: 1 }] },
      { _id: 2, a: [1, 1.0] },
      { _id: 3, a: [1, '1'] },
    ],
    run: (c) => schemaIds(c, { properties: { a: { uniqueItems: true } } }),
    expected: [3],
  },
  refused('uniqueItems must be a boolean', { properties: { a: { uniqueItems: 1 } } }, 14),
  refused('items must be an object or an array', { properties: { a: { items: 1 } } }, 14),
  refused('minItems must be a number', { properties: { a: { minItems: 'x' } } }, 9),
];

const objectCases: CompatCase[] = [
  typed('nested properties', { properties: { a: { properties: { b: { bsonType: 'string' } } } } }, except(7)),
  typed('nested required only judges objects', { properties: { a: { required: ['c'] } } }, except(7)),
  typed('minProperties counts _id at the top level', { minProperties: 2 }, except(13)),
  typed('maxProperties', { maxProperties: 1 }, [13]),
  typed('additionalProperties false allows only the listed properties (_id included)', { properties: { _id: {}, a: {} }, additionalProperties: false }, ALL),
  typed('additionalProperties false without _id matches nothing', { properties: { a: {} }, additionalProperties: false }, []),
  typed('additionalProperties as a schema', { properties: { _id: {} }, additionalProperties: { bsonType: 'int' } }, [1, 13]),
  typed('patternProperties', { patternProperties: { '^a$': { bsonType: 'string' } } }, [5, 13]),
  typed('dependencies on properties', { dependencies: { a: ['b'] } }, [13]),
  typed('dependencies on a schema', { dependencies: { a: { required: ['b'] } } }, [13]),
  {
    name: 'minProperties below the top level judges sub-documents',
    seed: [{ _id: 1, o: { x: 1 } }, { _id: 2, o: { x: 1, y: 2 } }, { _id: 3, o: 'x' }],
    run: (c) => schemaIds(c, { properties: { o: { minProperties: 2 } } }),
    expected: [2, 3],
  },
  refused('required must be an array', { required: 'a' }, 14),
  refused('required cannot be empty', { required: [] }, 9),
  refused('required cannot repeat a name', { required: ['a', 'a'] }, 9),
  refused('a property schema must be an object', { properties: { a: 1 } }, 14),
  refused('additionalProperties must be a boolean or an object', { additionalProperties: 1 }, 14),
  refused('a dependency must be an object or an array', { dependencies: { a: 1 } }, 14),
  refused('maxProperties must be non-negative', { maxProperties: -1 }, 9),
];

const logicalCases: CompatCase[] = [
  typed('enum below the top level (a missing property is allowed)', { properties: { a: { enum: [1, 'five', { b: 1 }] } } }, [1, 5, 7, 13]),
  typed('enum at the top level compares whole documents', { enum: [{ _id: 13 }, 'not a document'] }, [13]),
  {
    name: 'enum ignores sub-document field order',
    seed: [{ _id: 1, o: { p: 1, q: 2 } }, { _id: 2, o: { p: 2, q: 1 } }],
    run: (c) => schemaIds(c, { properties: { o: { enum: [{ q: 2, p: 1 }] } } }),
    expected: [1],
  },
  {
    name: 'enum treats a __proto__ field as a plain field',
    seed: [{ _id: 1, o: JSON.parse('{"__proto__": {"x": 1}}') }, { _id: 2, o: {} }],
    run: (c) => schemaIds(c, { properties: { o: { enum: [JSON.parse('{"__proto__": {"x": 1}}')] } } }),
    expected: [1],
  },
  typed('allOf', { allOf: [{ properties: { a: { bsonType: 'number' } } }, { properties: { a: { minimum: 3 } } }] }, [3, 4, 13]),
  typed(
    'anyOf',
    { anyOf: [{ required: ['a'], properties: { a: { bsonType: 'string' } } }, { properties: { a: { bsonType: 'bool' } } }] },
    [5, 9, 13],
  ),
  typed('oneOf: exactly one subschema', { oneOf: [{ properties: { a: { bsonType: 'number' } } }, { properties: { a: { minimum: 3 } } }] }, except(3, 4, 13)),
  typed('not', { not: { required: ['a'] } }, [13]),
  typed('title and description are ignored', { title: 't', description: 'd', properties: { a: { bsonType: 'int', description: 'x' } } }, [1, 13]),
  refused('enum cannot be empty', { properties: { a: { enum: [] } } }, 9),
  refused('enum must be an array', { properties: { a: { enum: 1 } } }, 14),
  refused('enum cannot repeat a value', { properties: { a: { enum: [1, 1] } } }, 9),
  refused('allOf must be an array', { allOf: {} }, 14),
  refused('anyOf cannot be empty', { anyOf: [] }, 2),
  refused('not must be an object', { not: [] }, 14),
  refused('title must be a string', { title: 1 }, 14),
];

const placementCases: CompatCase[] = [
  refused('$jsonSchema must be an object', 1, 14),
  refused('an unknown keyword is FailedToParse', { foo: 1 }, 9),
  refused('$ref is not supported', { $ref: '#/definitions/x' }, 9),
  refused('format is not supported', { properties: { a: { format: 'email' } } }, 9),
  refused('default is not supported', { properties: { a: { default: 1 } } }, 9),
  refused('definitions is not supported', { definitions: {} }, 9),
  {
    name: 'a field-level $jsonSchema is an unknown operator',
    seed: [{ _id: 1 }],
    run: (c) => c.find({ a: { $jsonSchema: {} } }).toArray(),
    code: 2,
  },
  {
    name: 'under $not it is an unknown operator',
    seed: [{ _id: 1 }],
    run: (c) => c.find({ a: { $not: { $jsonSchema: {} } } }).toArray(),
    code: 2,
  },
  {
    name: 'inside $or, $and and $nor',
    seed: TYPED,
    run: async (c) => {
      const isString = { $jsonSchema: { required: ['a'], properties: { a: { bsonType: 'string' } } } };
      return {
        or: await ids(c, { $or: [isString, { _id: 1 }] }),
        and: await ids(c, { $and: [isString, { _id: { $gt: 0 } }] }),
        nor: (await ids(c, { $nor: [isString] })).length,
      };
    },
    expected: { or: [1, 5], and: [5], nor: 14 },
  },
  {
    name: 'beside other conditions',
    seed: TYPED,
    run: (c) => ids(c, { _id: { $lt: 5 }, $jsonSchema: { properties: { a: { bsonType: 'number', minimum: 2 } } } }),
    expected: [2, 3, 4],
  },
  {
    name: 'inside $elemMatch (document form)',
    seed: [{ _id: 1, arr: [{ x: 1 }, { x: 'a' }] }, { _id: 2, arr: [{ x: 2 }] }],
    run: (c) => ids(c, { arr: { $elemMatch: { $jsonSchema: { required: ['x'], properties: { x: { bsonType: 'string' } } } } } }),
    expected: [1],
  },
  {
    name: 'count, countDocuments and aggregate $match',
    seed: TYPED,
    run: async (c, db) => {
      const filter = { $jsonSchema: { required: ['a'], properties: { a: { bsonType: 'number' } } } };
      const count = await db.command({ count: c.collectionName, query: filter });
      return [count.n, await c.countDocuments(filter), (await c.aggregate([{ $match: filter }, { $count: 'n' }]).toArray())[0]];
    },
    expected: [4, 4, { n: 4 }],
  },
  {
    name: 'update and delete filters',
    seed: TYPED,
    run: async (c) => {
      const strings = { $jsonSchema: { required: ['a'], properties: { a: { bsonType: 'string' } } } };
      const updated = await c.updateMany(strings, { $set: { seen: true } });
      const deleted = await c.deleteMany({ $jsonSchema: { properties: { a: { bsonType: 'long' } }, required: ['a'] } });
      return [updated.modifiedCount, deleted.deletedCount, await ids(c, { seen: true })];
    },
    expected: [1, 1, [5]],
  },
];

/** Creates the case's collection with a $jsonSchema validator. */
async function validated(c: LooseCollection, db: Db, schema: Document, extra: Document = {}): Promise<LooseCollection> {
  await db.createCollection(c.collectionName, { validator: { $jsonSchema: schema }, ...extra });
  return c;
}

const PERSON = {
  bsonType: 'object',
  required: ['name', 'age'],
  properties: {
    name: { bsonType: 'string', description: 'must be a string' },
    age: { bsonType: 'int', minimum: 0 },
  },
};

/** The error a write fails with, as `{code, errInfo}`. */
async function failure(write: Promise<unknown>): Promise<unknown> {
  return write.then(
    () => 'no error',
    (e: { code?: number; errInfo?: unknown }) => ({ code: e.code, errInfo: e.errInfo }),
  );
}

const validatorCases: CompatCase[] = [
  {
    name: 'a valid document is inserted',
    run: async (c, db) => (await (await validated(c, db, PERSON)).insertOne({ name: 'Ada', age: 36 })).acknowledged,
    expected: true,
  },
  {
    name: 'errInfo: properties with bsonType and minimum, as mongod details them',
    run: async (c, db) => failure((await validated(c, db, PERSON)).insertOne({ _id: 1, name: 5, age: -1 })),
    expected: {
      code: 121,
      errInfo: {
        failingDocumentId: 1,
        details: {
          operatorName: '$jsonSchema',
          schemaRulesNotSatisfied: [
            {
              operatorName: 'properties',
              propertiesNotSatisfied: [
                {
                  propertyName: 'name',
                  description: 'must be a string',
                  details: [{ operatorName: 'bsonType', specifiedAs: { bsonType: 'string' }, reason: 'type did not match', consideredValue: 5, consideredType: 'int' }],
                },
                { propertyName: 'age', details: [{ operatorName: 'minimum', specifiedAs: { minimum: 0 }, reason: 'comparison failed', consideredValue: -1 }] },
              ],
            },
          ],
        },
      },
    },
  },
  {
    name: 'errInfo: a missing required property is reported by required alone',
    run: async (c, db) => failure((await validated(c, db, PERSON)).insertOne({ _id: 2, age: 5 })),
    expected: {
      code: 121,
      errInfo: {
        failingDocumentId: 2,
        details: {
          operatorName: '$jsonSchema',
          schemaRulesNotSatisfied: [{ operatorName: 'required', specifiedAs: { required: ['name', 'age'] }, missingProperties: ['name'] }],
        },
      },
    },
  },
  {
    name: 'errInfo: pattern, minLength, maximum, enum, additionalProperties and a title',
    run: async (c, db) => {
      const schema = {
        title: 'Thing',
        properties: { _id: {}, s: { bsonType: 'string', minLength: 3, pattern: '^a' }, n: { maximum: 10 }, e: { enum: ['x', 'y'] } },
        additionalProperties: false,
      };
      return failure((await validated(c, db, schema)).insertOne({ _id: 3, s: 'b', n: 11, e: 'z', extra: true }));
    },
    expected: {
      code: 121,
      errInfo: {
        failingDocumentId: 3,
        details: {
          operatorName: '$jsonSchema',
          title: 'Thing',
          schemaRulesNotSatisfied: [
            {
              operatorName: 'properties',
              propertiesNotSatisfied: [
                {
                  propertyName: 's',
                  details: [
                    { operatorName: 'pattern', specifiedAs: { pattern: '^a' }, reason: 'regular expression did not match', consideredValue: 'b' },
                    { operatorName: 'minLength', specifiedAs: { minLength: 3 }, reason: 'specified string length was not satisfied', consideredValue: 'b' },
                  ],
                },
                { propertyName: 'n', details: [{ operatorName: 'maximum', specifiedAs: { maximum: 10 }, reason: 'comparison failed', consideredValue: 11 }] },
                { propertyName: 'e', details: [{ operatorName: 'enum', specifiedAs: { enum: ['x', 'y'] }, reason: 'value was not found in enum', consideredValue: 'z' }] },
              ],
            },
            { operatorName: 'additionalProperties', specifiedAs: { additionalProperties: false }, additionalProperties: ['extra'] },
          ],
        },
      },
    },
  },
  {
    name: 'errInfo: type and maxLength',
    run: async (c, db) =>
      failure((await validated(c, db, { properties: { t: { type: 'string' }, m: { maxLength: 2 } } })).insertOne({ _id: 4, t: 1, m: 'long' })),
    expected: {
      code: 121,
      errInfo: {
        failingDocumentId: 4,
        details: {
          operatorName: '$jsonSchema',
          schemaRulesNotSatisfied: [
            {
              operatorName: 'properties',
              propertiesNotSatisfied: [
                { propertyName: 't', details: [{ operatorName: 'type', specifiedAs: { type: 'string' }, reason: 'type did not match', consideredValue: 1, consideredType: 'int' }] },
                { propertyName: 'm', details: [{ operatorName: 'maxLength', specifiedAs: { maxLength: 2 }, reason: 'specified string length was not satisfied', consideredValue: 'long' }] },
              ],
            },
          ],
        },
      },
    },
  },
  {
    name: 'errInfo: uniqueItems and items (with the failing item)',
    run: async (c, db) =>
      failure((await validated(c, db, { properties: { arr: { items: { bsonType: 'int' }, minItems: 3, uniqueItems: true } } })).insertOne({ _id: 5, arr: [1, 'x', 1] })),
    expected: {
      code: 121,
      errInfo: {
        failingDocumentId: 5,
        details: {
          operatorName: '$jsonSchema',
          schemaRulesNotSatisfied: [
            {
              operatorName: 'properties',
              propertiesNotSatisfied: [
                {
                  propertyName: 'arr',
                  details: [
                    { operatorName: 'uniqueItems', specifiedAs: { uniqueItems: true }, reason: 'found a duplicate item', consideredValue: [1, 'x', 1], duplicatedValue: 1 },
                    {
                      operatorName: 'items',
                      reason: 'At least one item did not match the sub-schema',
                      itemIndex: 1,
                      details: [{ operatorName: 'bsonType', specifiedAs: { bsonType: 'int' }, reason: 'type did not match', consideredValue: 'x', consideredType: 'string' }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      },
    },
  },
  {
    name: 'errInfo: anyOf, oneOf and not',
    run: async (c, db) => {
      const schema = { anyOf: [{ required: ['a'] }, { required: ['b'] }], not: { required: ['c'] }, oneOf: [{ required: ['c'] }, { required: ['d'] }] };
      return failure((await validated(c, db, schema)).insertOne({ _id: 6, c: 1, d: 1 }));
    },
    expected: {
      code: 121,
      errInfo: {
        failingDocumentId: 6,
        details: {
          operatorName: '$jsonSchema',
          schemaRulesNotSatisfied: [
            {
              operatorName: 'anyOf',
              schemasNotSatisfied: [
                { index: 0, details: [{ operatorName: 'required', specifiedAs: { required: ['a'] }, missingProperties: ['a'] }] },
                { index: 1, details: [{ operatorName: 'required', specifiedAs: { required: ['b'] }, missingProperties: ['b'] }] },
              ],
            },
            { operatorName: 'oneOf', reason: 'more than one subschema matched', matchingSchemaIndexes: [0, 1] },
            { operatorName: 'not', reason: 'child expression matched' },
          ],
        },
      },
    },
  },
  {
    name: 'errInfo: multipleOf, additionalProperties as a schema, patternProperties, minProperties, dependencies',
    run: async (c, db) => {
      const schema = {
        properties: { _id: {}, n: { multipleOf: 2 } },
        patternProperties: { '^x': { bsonType: 'string' } },
        additionalProperties: { bsonType: 'bool' },
        minProperties: 5,
        dependencies: { n: ['m'] },
      };
      return failure((await validated(c, db, schema)).insertOne({ _id: 7, n: 3, x1: 1, other: 'no' }));
    },
    expected: {
      code: 121,
      errInfo: {
        failingDocumentId: 7,
        details: {
          operatorName: '$jsonSchema',
          schemaRulesNotSatisfied: [
            {
              operatorName: 'properties',
              propertiesNotSatisfied: [
                { propertyName: 'n', details: [{ operatorName: 'multipleOf', specifiedAs: { multipleOf: 2 }, reason: 'considered value is not a multiple of the specified value', consideredValue: 3 }] },
              ],
            },
            {
              operatorName: 'additionalProperties',
              reason: 'at least one additional property did not match the subschema',
              failingProperty: 'other',
              details: [{ operatorName: 'bsonType', specifiedAs: { bsonType: 'bool' }, reason: 'type did not match', consideredValue: 'no', consideredType: 'string' }],
            },
            {
              operatorName: 'patternProperties',
              details: [
                {
                  propertyName: 'x1',
                  regexMatched: '^x',
                  details: [{ operatorName: 'bsonType', specifiedAs: { bsonType: 'string' }, reason: 'type did not match', consideredValue: 1, consideredType: 'int' }],
                },
              ],
            },
            { operatorName: 'minProperties', specifiedAs: { minProperties: 5 }, reason: 'specified number of properties was not satisfied', numberOfProperties: 4 },
            { operatorName: 'dependencies', failingDependencies: [{ conditionalProperty: 'n', missingProperties: ['m'] }] },
          ],
        },
      },
    },
  },
  {
    name: 'an update into an invalid document is refused and changes nothing',
    run: async (c, db) => {
      const coll = await validated(c, db, PERSON);
      await coll.insertOne({ _id: 1, name: 'Ada', age: 36 });
      const err = await coll.updateOne({ _id: 1 }, { $set: { age: 'old' } }).catch((e: { code: number }) => e.code);
      return [err, await coll.findOne({ _id: 1 })];
    },
    expected: [121, { _id: 1, name: 'Ada', age: 36 }],
  },
  {
    name: 'findOneAndUpdate into an invalid document is refused',
    run: async (c, db) => {
      const coll = await validated(c, db, PERSON);
      await coll.insertOne({ _id: 1, name: 'Ada', age: 36 });
      return coll.findOneAndUpdate({ _id: 1 }, { $unset: { name: '' } });
    },
    code: 121,
  },
  {
    name: 'an invalid upsert is refused',
    run: async (c, db) => (await validated(c, db, PERSON)).updateOne({ _id: 9 }, { $set: { name: 'x' } }, { upsert: true }),
    code: 121,
  },
  {
    name: 'an ordered bulk write stops at the invalid document',
    run: async (c, db) => {
      const coll = await validated(c, db, PERSON);
      const err = await coll
        .bulkWrite([{ insertOne: { document: { _id: 1, name: 'a', age: 1 } } }, { insertOne: { document: { _id: 2, name: 'b' } } }, { insertOne: { document: { _id: 3, name: 'c', age: 3 } } }])
        .catch((e: { code: number }) => e.code);
      return [err, await ids(coll, {})];
    },
    expected: [121, [1]],
  },
  {
    name: 'bypassDocumentValidation skips the schema',
    run: async (c, db) => {
      const coll = await validated(c, db, PERSON);
      await coll.insertOne({ _id: 1 }, { bypassDocumentValidation: true });
      await coll.updateOne({ _id: 1 }, { $set: { age: 'x' } }, { bypassDocumentValidation: true });
      return coll.findOne({ _id: 1 });
    },
    expected: { _id: 1, age: 'x' },
  },
  {
    name: "validationAction 'warn' accepts invalid documents",
    run: async (c, db) => {
      const coll = await validated(c, db, PERSON, { validationAction: 'warn' });
      await coll.insertOne({ _id: 1 });
      return coll.countDocuments();
    },
    expected: 1,
  },
  {
    name: "validationLevel 'off' accepts invalid documents",
    run: async (c, db) => {
      const coll = await validated(c, db, PERSON, { validationLevel: 'off' });
      await coll.insertOne({ _id: 1 });
      return coll.countDocuments();
    },
    expected: 1,
  },
  {
    name: "validationLevel 'moderate' lets an already-invalid document be updated, not a valid one broken",
    run: async (c, db) => {
      const coll = await validated(c, db, PERSON, { validationLevel: 'moderate' });
      await coll.insertOne({ _id: 1 }, { bypassDocumentValidation: true });
      await coll.insertOne({ _id: 2, name: 'b', age: 2 });
      await coll.updateOne({ _id: 1 }, { $set: { note: 'still invalid' } });
      const err = await coll.updateOne({ _id: 2 }, { $set: { age: -2 } }).catch((e: { code: number }) => e.code);
      return [await coll.findOne({ _id: 1 }), err];
    },
    expected: [{ _id: 1, note: 'still invalid' }, 121],
  },
  {
    name: 'a $jsonSchema mixed with query operators must satisfy both',
    run: async (c, db) => {
      await db.createCollection(c.collectionName, { validator: { $jsonSchema: { required: ['a'] }, b: { $gt: 0 } } });
      const codes = [];
      for (const doc of [{ a: 1, b: 0 }, { b: 1 }, { a: 1, b: 1 }]) codes.push(await c.insertOne(doc).then(() => 'ok', (e: { code: number }) => e.code));
      return codes;
    },
    expected: [121, 121, 'ok'],
  },
  {
    name: 'collMod adds a $jsonSchema validator; listCollections shows it with its level and action',
    run: async (c, db) => {
      await db.createCollection(c.collectionName);
      await db.command({ collMod: c.collectionName, validator: { $jsonSchema: { required: ['x'] } }, validationAction: 'error' });
      const err = await c.insertOne({ y: 1 }).catch((e: { code: number }) => e.code);
      const [info] = await db.listCollections({ name: c.collectionName }, { nameOnly: false }).toArray();
      return [err, info?.options];
    },
    expected: [121, { validator: { $jsonSchema: { required: ['x'] } }, validationLevel: 'strict', validationAction: 'error' }],
  },
  {
    name: 'create with an unsupported keyword is FailedToParse',
    run: (c, db) => db.createCollection(c.collectionName, { validator: { $jsonSchema: { $schema: 'http://json-schema.org/draft-04/schema#' } } }),
    code: 9,
  },
  {
    name: 'collMod with a malformed schema is refused and keeps the old validator',
    run: async (c, db) => {
      const coll = await validated(c, db, PERSON);
      const err = await db.command({ collMod: c.collectionName, validator: { $jsonSchema: { required: 'x' } } }).catch((e: { code: number }) => e.code);
      const [info] = await db.listCollections({ name: coll.collectionName }, { nameOnly: false }).toArray();
      return [err, info?.options?.validator];
    },
    expected: [14, { $jsonSchema: PERSON }],
  },
];

describeCompat('json-schema query', [...bsonTypeCases, ...scalarCases, ...arrayCases, ...objectCases, ...logicalCases, ...placementCases]);
describeCompat('json-schema validator', validatorCases);

describe('json-schema validator: durability on lmdb', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-json-schema');
  const withDb = <T>(dbPath: string, run: (db: Db) => Promise<T>): Promise<T> => withClient(dbPath, (client) => run(client.db('app')));

  it('keeps the $jsonSchema validator, its level and action, and enforces it after a restart', async () => {
    const dbPath = tempDir();
    await withDb(dbPath, (db) => db.createCollection('people', { validator: { $jsonSchema: PERSON }, validationLevel: 'moderate', validationAction: 'error' }));
    const [options, err] = await withDb(dbPath, async (db) => {
      const [info] = await db.listCollections({ name: 'people' }, { nameOnly: false }).toArray();
      const code = await db.collection('people').insertOne({ name: 7 }).catch((e: { code: number }) => e.code);
      return [info?.options, code];
    });
    expect(options).toEqual({ validator: { $jsonSchema: PERSON }, validationLevel: 'moderate', validationAction: 'error' });
    expect(err).toBe(121);
  });
});
