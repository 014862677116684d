import { mongoError } from '../../errors.js';
import { compareValues } from '../compare.js';
import { toRegExp } from '../regex.js';
import { BSON_TYPE_NUMBERS, bsonTypeName } from '../type-names.js';
import type { Document } from '../types.js';
import { isNumeric, isPlainObject, numericType, toBigInt, toDouble } from '../values.js';
import type { TopLevelOperator } from './filter-types.js';
import { logicalRules } from './json-schema-logic.js';
import { dependencyRule, objectRules } from './json-schema-objects.js';
import {
  entry,
  isNumber,
  isString,
  kw,
  nonNegativeInteger,
  restriction,
  unorderedEqual,
  type CompiledSchema,
  type SchemaContext,
  type SchemaRule,
} from './json-schema-support.js';

/**
 * `$jsonSchema` as mongod 7.0 runs it (draft 4 with BSON types, no `$ref`).
 * A schema is parsed once into rules; each rule tests a value and, when it
 * fails, explains itself in the shape mongod gives `errInfo.details` of a
 * DocumentValidationFailure. Values are the engine's value model, so BSON
 * types (Long, Decimal128, ObjectId, ...) are judged by the engine's own
 * helpers; a JSON-Schema library would see them as plain objects.
 *
 * Semantics kept from mongod's translation (json_schema_parser.cpp): no
 * implicit array traversal; a keyword that restricts one type (minimum,
 * minLength, items, properties, ...) passes any value of another type; at the
 * top level (the document itself) value keywords are no-ops, a type without
 * "object" matches nothing and `enum` compares whole documents.
 */

const UNSUPPORTED = new Set(['$ref', '$schema', 'default', 'definitions', 'format', 'id']);
const KEYWORDS = new Set([
  'additionalItems', 'additionalProperties', 'allOf', 'anyOf', 'bsonType', 'dependencies', 'description',
  'enum', 'exclusiveMaximum', 'exclusiveMinimum', 'items', 'maxItems', 'maxLength', 'maxProperties', 'maximum',
  'minItems', 'minLength', 'minProperties', 'minimum', 'multipleOf', 'not', 'oneOf', 'pattern',
  'patternProperties', 'properties', 'required', 'title', 'type', 'uniqueItems',
]);
const JSON_TYPES: Record<string, string> = { array: 'array', boolean: 'bool', null: 'null', object: 'object', string: 'string' };

/** The type set of `type`/`bsonType`: BSON aliases it accepts, plus "number" for any numeric type. */
interface TypeSet {
  names: Set<string>;
  allNumbers: boolean;
}

function parseTypeSet(keyword: 'type' | 'bsonType', spec: unknown): TypeSet {
  if (typeof spec !== 'string' && !Array.isArray(spec)) {
    throw mongoError('TypeMismatch', `${kw(keyword)} must be either a string or an array of strings`);
  }
  const aliases = typeof spec === 'string' ? [spec] : spec;
  const seen = new Set<string>();
  for (const alias of aliases) {
    if (typeof alias !== 'string') throw mongoError('TypeMismatch', `${kw(keyword)} array elements must be strings`);
    if (keyword === 'type' && alias === 'integer') {
      throw mongoError('FailedToParse', "$jsonSchema type 'integer' is not currently supported.");
    }
    if (seen.has(alias)) throw mongoError('FailedToParse', `${kw(keyword)} has duplicate value: ${alias}`);
    seen.add(alias);
  }
  const set: TypeSet = { names: new Set(), allNumbers: false };
  for (const alias of seen) {
    if (alias === 'number') set.allNumbers = true;
    else if (keyword === 'type' ? alias in JSON_TYPES : alias in BSON_TYPE_NUMBERS) set.names.add(keyword === 'type' ? JSON_TYPES[alias]! : alias);
    else throw mongoError('BadValue', `Unknown type name alias: ${alias}`);
  }
  if (set.names.size === 0 && !set.allNumbers) throw mongoError('FailedToParse', `${kw(keyword)} must name at least one type`);
  return set;
}

function typeMatches(set: TypeSet, value: unknown): boolean {
  if (value === undefined) return false;
  if (set.allNumbers && numericType(value) !== undefined) return true;
  const name = bsonTypeName(value);
  return name !== undefined && set.names.has(name);
}

function lengthRule(name: string, spec: unknown, ok: (len: number, bound: number) => boolean): SchemaRule {
  const bound = nonNegativeInteger(name, spec);
  return restriction(
    isString,
    (v) => ok([...(v as string)].length, bound),
    (v) => [entry(name, { [name]: spec }, { reason: 'specified string length was not satisfied', consideredValue: v })],
  );
}

function itemsCountRule(name: string, spec: unknown, ok: (len: number, bound: number) => boolean): SchemaRule {
  const bound = nonNegativeInteger(name, spec);
  return restriction(
    Array.isArray,
    (v) => ok((v as unknown[]).length, bound),
    (v) => [entry(name, { [name]: spec }, { reason: 'array did not match specified length', consideredValue: v, numberOfItems: (v as unknown[]).length })],
  );
}

function isMultiple(value: unknown, divisor: unknown): boolean {
  const a = toBigInt(value);
  const b = toBigInt(divisor);
  if (a !== undefined && b !== undefined && b !== 0n) return a % b === 0n;
  const r = toDouble(value) % toDouble(divisor);
  return r === 0;
}

function boundRule(name: 'minimum' | 'maximum', schema: Document): SchemaRule {
  const bound = schema[name];
  const exclusiveName = name === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum';
  const exclusive = schema[exclusiveName];
  if (!isNumeric(bound)) throw mongoError('TypeMismatch', `${kw(name)} must be a number`);
  if (exclusive !== undefined && typeof exclusive !== 'boolean') throw mongoError('TypeMismatch', `${kw(exclusiveName)} must be a boolean`);
  const strict = exclusive === true;
  const sign = name === 'minimum' ? 1 : -1;
  const specifiedAs = strict ? { [name]: bound, [exclusiveName]: true } : { [name]: bound };
  return restriction(
    isNumber,
    (v) => {
      const c = compareValues(v, bound) * sign;
      return strict ? c > 0 : c >= 0;
    },
    (v) => [entry(name, specifiedAs, { reason: 'comparison failed', consideredValue: v })],
  );
}

/** Scalar keywords (strings and numbers); they are no-ops on the document itself. */
function scalarRules(schema: Document, top: boolean): SchemaRule[] {
  const rules: SchemaRule[] = [];
  if (schema.pattern !== undefined) {
    if (typeof schema.pattern !== 'string') throw mongoError('TypeMismatch', `${kw('pattern')} must be a string`);
    const re = toRegExp(schema.pattern, '');
    const spec = schema.pattern;
    rules.push(
      restriction(
        isString,
        (v) => {
          re.lastIndex = 0;
          return re.test(v as string);
        },
        (v) => [entry('pattern', { pattern: spec }, { reason: 'regular expression did not match', consideredValue: v })],
      ),
    );
  }
  if (schema.maxLength !== undefined) rules.push(lengthRule('maxLength', schema.maxLength, (n, b) => n <= b));
  if (schema.minLength !== undefined) rules.push(lengthRule('minLength', schema.minLength, (n, b) => n >= b));
  if (schema.multipleOf !== undefined) {
    const divisor = schema.multipleOf;
    if (!isNumeric(divisor)) throw mongoError('TypeMismatch', `${kw('multipleOf')} must be a number`);
    if (!(toDouble(divisor) > 0)) throw mongoError('FailedToParse', `${kw('multipleOf')} must have a positive value`);
    rules.push(
      restriction(
        isNumber,
        (v) => isMultiple(v, divisor),
        (v) => [entry('multipleOf', { multipleOf: divisor }, { reason: 'considered value is not a multiple of the specified value', consideredValue: v })],
      ),
    );
  }
  if (schema.maximum !== undefined) rules.push(boundRule('maximum', schema));
  else if (schema.exclusiveMaximum !== undefined) {
    throw mongoError('FailedToParse', "$jsonSchema keyword 'maximum' must be a present if exclusiveMaximum is present");
  }
  if (schema.minimum !== undefined) rules.push(boundRule('minimum', schema));
  else if (schema.exclusiveMinimum !== undefined) {
    throw mongoError('FailedToParse', "$jsonSchema keyword 'minimum' must be a present if exclusiveMinimum is present");
  }
  return top ? [] : rules;
}

/** Array keywords; no-ops on the document itself. */
function arrayRules(schema: Document, top: boolean, ctx: SchemaContext): SchemaRule[] {
  const rules: SchemaRule[] = [];
  if (schema.minItems !== undefined) rules.push(itemsCountRule('minItems', schema.minItems, (n, b) => n >= b));
  if (schema.maxItems !== undefined) rules.push(itemsCountRule('maxItems', schema.maxItems, (n, b) => n <= b));
  if (schema.uniqueItems !== undefined) {
    if (typeof schema.uniqueItems !== 'boolean') throw mongoError('TypeMismatch', `${kw('uniqueItems')} must be a boolean`);
    if (schema.uniqueItems) {
      rules.push(
        restriction(
          Array.isArray,
          (v) => firstDuplicate(v as unknown[]) === undefined,
          (v) => [entry('uniqueItems', { uniqueItems: true }, { reason: 'found a duplicate item', consideredValue: v, duplicatedValue: firstDuplicate(v as unknown[])?.value })],
        ),
      );
    }
  }
  let additionalFrom: number | undefined;
  const items = schema.items;
  if (items !== undefined) {
    if (Array.isArray(items)) {
      const subs = items.map((s) => {
        if (!isPlainObject(s)) throw mongoError('TypeMismatch', `${kw('items')} requires that each element of the array is an object, but found a ${typeof s}`);
        return ctx.compile(s, false);
      });
      additionalFrom = subs.length;
      rules.push(
        restriction(
          Array.isArray,
          (v) => subs.every((s, i) => i >= (v as unknown[]).length || s.test((v as unknown[])[i])),
          (v) => {
            const arr = v as unknown[];
            const details = subs.flatMap((s, i) => (i < arr.length && !s.test(arr[i]) ? [{ itemIndex: i, details: s.explain(arr[i]) }] : []));
            return [{ operatorName: 'items', details }];
          },
        ),
      );
    } else if (isPlainObject(items)) {
      rules.push(elementsFrom('items', 0, ctx.compile(items, false), 'At least one item did not match the sub-schema'));
    } else {
      throw mongoError('TypeMismatch', `${kw('items')} must be an array or an object, not ${bsonTypeName(items) ?? 'missing'}`);
    }
  }
  const additional = schema.additionalItems;
  if (additional !== undefined) {
    let rule: SchemaRule | undefined;
    if (typeof additional === 'boolean') {
      if (!additional && additionalFrom !== undefined) {
        const from = additionalFrom;
        rule = restriction(
          Array.isArray,
          (v) => (v as unknown[]).length <= from,
          (v) => [entry('additionalItems', { additionalItems: false }, { reason: 'found additional items', additionalItems: (v as unknown[]).slice(from) })],
        );
      }
    } else if (isPlainObject(additional)) {
      const sub = ctx.compile(additional, false);
      if (additionalFrom !== undefined) rule = elementsFrom('additionalItems', additionalFrom, sub, 'At least one additional item did not match the sub-schema');
    } else {
      throw mongoError('TypeMismatch', `${kw('additionalItems')} must be either an object or a boolean, but got a ${bsonTypeName(additional) ?? 'missing'}`);
    }
    if (rule) rules.push(rule);
  }
  return top ? [] : rules;
}

/** Every element from `start` on must match `sub` (`items: {schema}`, `additionalItems: {schema}`). */
function elementsFrom(name: string, start: number, sub: CompiledSchema, reason: string): SchemaRule {
  const firstFailing = (arr: unknown[]) => {
    for (let i = start; i < arr.length; i++) if (!sub.test(arr[i])) return i;
    return -1;
  };
  return restriction(
    Array.isArray,
    (v) => firstFailing(v as unknown[]) < 0,
    (v) => {
      const i = firstFailing(v as unknown[]);
      return [{ operatorName: name, ...sub.annotations, reason, itemIndex: i, details: sub.explain((v as unknown[])[i]) }];
    },
  );
}

function firstDuplicate(arr: unknown[]): { value: unknown } | undefined {
  for (let i = 1; i < arr.length; i++) {
    for (let j = 0; j < i; j++) if (unorderedEqual(arr[i], arr[j])) return { value: arr[i] };
  }
  return undefined;
}

function typeRule(keyword: 'type' | 'bsonType', spec: unknown, set: TypeSet): SchemaRule {
  return {
    test: (v) => typeMatches(set, v),
    // A missing value is reported by `required`, not here.
    explain: (v) =>
      v === undefined ? [] : [entry(keyword, { [keyword]: spec }, { reason: 'type did not match', consideredValue: v, consideredType: bsonTypeName(v) })],
  };
}

function checkKeywords(schema: Document): void {
  for (const key of Object.keys(schema)) {
    if (KEYWORDS.has(key)) continue;
    if (UNSUPPORTED.has(key)) throw mongoError('FailedToParse', `${kw(key)} is not currently supported`);
    throw mongoError('FailedToParse', `Unknown $jsonSchema keyword: ${key}`);
  }
  for (const name of ['description', 'title']) {
    if (schema[name] !== undefined && typeof schema[name] !== 'string') {
      throw mongoError('TypeMismatch', `${kw(name)} must be of type string`);
    }
  }
  if (schema.type !== undefined && schema.bsonType !== undefined) {
    throw mongoError('FailedToParse', "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
  }
}

function annotationsOf(schema: Document): Document {
  const out: Document = {};
  if (schema.title !== undefined) out.title = schema.title;
  if (schema.description !== undefined) out.description = schema.description;
  return out;
}

/** Compiles one (sub)schema; `top` is the document itself (mongod's empty path). */
function compileSchema(schema: Document, top: boolean): CompiledSchema {
  checkKeywords(schema);
  const ctx: SchemaContext = { compile: compileSchema };
  const typeKeyword = schema.type !== undefined ? 'type' : schema.bsonType !== undefined ? 'bsonType' : undefined;
  const types = typeKeyword ? parseTypeSet(typeKeyword, schema[typeKeyword]) : undefined;
  const rules: SchemaRule[] = [
    ...scalarRules(schema, top),
    ...arrayRules(schema, top, ctx),
    ...objectRules(schema, top, ctx),
    ...(schema.dependencies !== undefined ? [dependencyRule(schema.dependencies, ctx, top)] : []),
    ...logicalRules(schema, top, ctx),
  ];
  if (typeKeyword && types) {
    if (top && !types.names.has('object')) {
      // Only documents are stored: a top-level schema of another type matches nothing.
      const failure = { operatorName: '$jsonSchema', specifiedAs: { $jsonSchema: schema }, reason: 'expression always evaluates to false' };
      return { annotations: {}, test: () => false, explain: () => [failure], alwaysFalse: failure };
    } else if (!top) {
      rules.push(typeRule(typeKeyword, schema[typeKeyword], types));
    }
  }
  return {
    annotations: annotationsOf(schema),
    test: (v) => {
      for (const r of rules) if (!r.test(v)) return false;
      return true;
    },
    explain: (v) => rules.flatMap((r) => (r.test(v) ? [] : r.explain(v))),
  };
}

/** A parsed `$jsonSchema` operand: a document test and mongod's errInfo `details` for a failing document. */
export interface JsonSchemaMatcher {
  test(doc: Document): boolean;
  details(doc: Document): Document;
}

export function compileJsonSchema(operand: unknown): JsonSchemaMatcher {
  if (!isPlainObject(operand)) throw mongoError('TypeMismatch', '$jsonSchema must be an object');
  const schema = compileSchema(operand, true);
  return {
    test: (doc) => schema.test(doc),
    details: (doc) => schema.alwaysFalse ?? { operatorName: '$jsonSchema', ...schema.annotations, schemaRulesNotSatisfied: schema.explain(doc) },
  };
}

/** The query operator: `{$jsonSchema: {...}}` at the top level of a filter (also inside $and/$or/$nor). */
export const jsonSchemaTopLevel: TopLevelOperator = (operand) => {
  const schema = compileJsonSchema(operand);
  return (doc) => schema.test(doc);
};
