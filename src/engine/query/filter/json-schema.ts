import { mongoError } from '../../errors.js';
import { BSON_TYPE_NUMBERS, bsonTypeName } from '../type-names.js';
import type { Document } from '../types.js';
import { isPlainObject, numericType } from '../values.js';
import type { TopLevelOperator } from './filter-types.js';
import { arrayRules } from './json-schema-arrays.js';
import { logicalRules } from './json-schema-logic.js';
import { dependencyRule, objectRules } from './json-schema-objects.js';
import { scalarRules } from './json-schema-scalars.js';
import { entry, kw, type CompiledSchema, type SchemaContext, type SchemaRule } from './json-schema-support.js';

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
