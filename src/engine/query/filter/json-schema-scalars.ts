import { mongoError } from '../../errors.js';
import { compareValues } from '../compare.js';
import { toRegExp } from '../regex.js';
import type { Document } from '../types.js';
import { isNumeric, toBigInt, toDouble } from '../values.js';
import { entry, isNumber, isString, kw, nonNegativeInteger, restriction, type SchemaRule } from './json-schema-support.js';

/**
 * `$jsonSchema` string and number keywords, in mongod's order: pattern,
 * maxLength, minLength, multipleOf, maximum, minimum. Each judges only values
 * of its own type, and none judges the document itself.
 */

function lengthRule(name: string, spec: unknown, ok: (len: number, bound: number) => boolean): SchemaRule {
  const bound = nonNegativeInteger(name, spec);
  return restriction(
    isString,
    (v) => ok([...(v as string)].length, bound),
    (v) => [entry(name, { [name]: spec }, { reason: 'specified string length was not satisfied', consideredValue: v })],
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
export function scalarRules(schema: Document, top: boolean): SchemaRule[] {
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
