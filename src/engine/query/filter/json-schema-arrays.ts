import { mongoError } from '../../errors.js';
import { bsonTypeName } from '../type-names.js';
import type { Document } from '../types.js';
import { isPlainObject } from '../values.js';
import {
  entry,
  nonNegativeInteger,
  restriction,
  unorderedEqual,
  kw,
  type CompiledSchema,
  type SchemaContext,
  type SchemaRule,
} from './json-schema-support.js';

/**
 * `$jsonSchema` array keywords, in mongod's order: minItems, maxItems,
 * uniqueItems, items, additionalItems. They judge only arrays (never by
 * implicit traversal), and none judges the document itself.
 */

function itemsCountRule(name: string, spec: unknown, ok: (len: number, bound: number) => boolean): SchemaRule {
  const bound = nonNegativeInteger(name, spec);
  return restriction(
    Array.isArray,
    (v) => ok((v as unknown[]).length, bound),
    (v) => [entry(name, { [name]: spec }, { reason: 'array did not match specified length', consideredValue: v, numberOfItems: (v as unknown[]).length })],
  );
}

/** Array keywords; no-ops on the document itself. */
export function arrayRules(schema: Document, top: boolean, ctx: SchemaContext): SchemaRule[] {
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
