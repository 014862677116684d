import { mongoError } from '../../errors.js';
import { compareValues } from '../compare.js';
import { bsonTypeName } from '../type-names.js';
import type { Document } from '../types.js';
import { isPlainObject } from '../values.js';
import { entry, kw, unorderedEqual, unorderedKey, type CompiledSchema, type SchemaContext, type SchemaRule } from './json-schema-support.js';

/** `$jsonSchema` logical keywords, in mongod's order: allOf, anyOf, oneOf, not, enum. */

function subschemas(name: string, spec: unknown, top: boolean, ctx: SchemaContext): CompiledSchema[] {
  if (!Array.isArray(spec)) throw mongoError('TypeMismatch', `${kw(name)} must be an array`);
  if (spec.length === 0) throw mongoError('BadValue', `${kw(name)} must be a non-empty array`);
  return spec.map((s) => {
    if (!isPlainObject(s)) {
      throw mongoError('TypeMismatch', `${kw(name)} must be an array of objects, but found an element of type ${bsonTypeName(s)}`);
    }
    return ctx.compile(s, top);
  });
}

/** `{index, title?, description?, details}` for each listed subschema, as mongod's schemasNotSatisfied. */
function notSatisfied(subs: CompiledSchema[], indexes: number[], v: unknown): Document[] {
  return indexes.map((i) => ({ index: i, ...subs[i]!.annotations, details: subs[i]!.explain(v) }));
}

const indexesWhere = (subs: CompiledSchema[], pred: (s: CompiledSchema) => boolean) => subs.flatMap((s, i) => (pred(s) ? [i] : []));

function enumRule(spec: unknown, top: boolean): SchemaRule {
  if (!Array.isArray(spec)) {
    throw mongoError('TypeMismatch', `${kw('enum')} must be an array, but found an element of type ${bsonTypeName(spec)}`);
  }
  if (spec.length === 0) throw mongoError('FailedToParse', `${kw('enum')} cannot be an empty array`);
  spec.forEach((v, i) => {
    if (spec.slice(0, i).some((w) => unorderedEqual(v, w))) throw mongoError('FailedToParse', `${kw('enum')} array cannot contain duplicate values.`);
  });
  const specifiedAs = { enum: spec };
  // Only documents are stored, so at the top level only object members can match.
  const members = (top ? spec.filter(isPlainObject) : spec).map(unorderedKey);
  if (members.length === 0) {
    return { test: () => false, explain: () => [entry('enum', specifiedAs, { reason: 'expression always evaluates to false' })] };
  }
  const isMember = (v: unknown) => {
    const key = unorderedKey(v);
    return members.some((m) => compareValues(key, m) === 0);
  };
  return {
    test: (v) => v !== undefined && isMember(v),
    explain: (v) => (v === undefined ? [] : [entry('enum', specifiedAs, { reason: 'value was not found in enum', consideredValue: v })]),
  };
}

export function logicalRules(schema: Document, top: boolean, ctx: SchemaContext): SchemaRule[] {
  const rules: SchemaRule[] = [];
  if (schema.allOf !== undefined) {
    const subs = subschemas('allOf', schema.allOf, top, ctx);
    rules.push({
      test: (v) => subs.every((s) => s.test(v)),
      explain: (v) => [{ operatorName: 'allOf', schemasNotSatisfied: notSatisfied(subs, indexesWhere(subs, (s) => !s.test(v)), v) }],
    });
  }
  if (schema.anyOf !== undefined) {
    const subs = subschemas('anyOf', schema.anyOf, top, ctx);
    rules.push({
      test: (v) => subs.some((s) => s.test(v)),
      explain: (v) => [{ operatorName: 'anyOf', schemasNotSatisfied: notSatisfied(subs, indexesWhere(subs, () => true), v) }],
    });
  }
  if (schema.oneOf !== undefined) {
    const subs = subschemas('oneOf', schema.oneOf, top, ctx);
    rules.push({
      test: (v) => indexesWhere(subs, (s) => s.test(v)).length === 1,
      explain: (v) => {
        const matching = indexesWhere(subs, (s) => s.test(v));
        if (matching.length > 1) return [{ operatorName: 'oneOf', reason: 'more than one subschema matched', matchingSchemaIndexes: matching }];
        return [{ operatorName: 'oneOf', schemasNotSatisfied: notSatisfied(subs, indexesWhere(subs, () => true), v) }];
      },
    });
  }
  if (schema.not !== undefined) {
    if (!isPlainObject(schema.not)) {
      throw mongoError('TypeMismatch', `${kw('not')} must be an object, but found an element of type ${bsonTypeName(schema.not)}`);
    }
    const sub = ctx.compile(schema.not, top);
    rules.push({ test: (v) => !sub.test(v), explain: () => [{ operatorName: 'not', reason: 'child expression matched' }] });
  }
  if (schema.enum !== undefined) rules.push(enumRule(schema.enum, top));
  return rules;
}
