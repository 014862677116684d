import { mongoError } from '../../errors.js';
import { compareValues, valuesEqual } from '../compare.js';
import { compileFilter, isOperatorObject } from '../filter/compile-filter.js';
import { formatValue } from '../format.js';
import { isRegexValue, regexMatches, regexOf } from '../regex.js';
import { compileSort } from '../sort.js';
import { bsonTypeName } from '../type-names.js';
import { cloneValue, isNumeric, isPlainObject, toDouble } from '../values.js';
import type { ApplyContext, FieldAction, FieldOperatorCompiler } from './update-types.js';

/** Array update operators: $push (with $each $position $slice $sort) $addToSet $pull $pullAll $pop. */

function requireArray(current: unknown, path: string, ctx: ApplyContext): unknown[] {
  if (!Array.isArray(current)) {
    throw mongoError(
      'BadValue',
      `The field '${path}' must be an array but is of type ${bsonTypeName(current)} in document ${formatValue(ctx.docId)}`,
    );
  }
  return current;
}

function integer(name: string, value: unknown): number {
  if (!isNumeric(value) || !Number.isInteger(toDouble(value))) {
    throw mongoError('BadValue', `The value for ${name} must be an integer value but was given type: ${bsonTypeName(value)}`);
  }
  return toDouble(value);
}

/** `$sort` inside `$push`: 1/-1 sorts values, a document sorts sub-documents by fields. */
function pushSorter(spec: unknown): (values: unknown[]) => unknown[] {
  if (isNumeric(spec) && (toDouble(spec) === 1 || toDouble(spec) === -1)) {
    const dir = toDouble(spec);
    return (values) => [...values].sort((a, b) => dir * compareValues(a, b));
  }
  if (isPlainObject(spec) && Object.keys(spec).length > 0) {
    const cmp = compileSort(spec);
    const asDoc = (v: unknown) => (isPlainObject(v) ? v : {});
    return (values) => [...values].sort((a, b) => cmp(asDoc(a), asDoc(b)));
  }
  throw mongoError('BadValue', 'The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields');
}

const PUSH_MODIFIERS = new Set(['$each', '$slice', '$sort', '$position']);

const push: FieldOperatorCompiler = (operand) => {
  let items: unknown[] = [operand];
  let position: number | undefined;
  let slice: number | undefined;
  let sort: ((values: unknown[]) => unknown[]) | undefined;
  if (isPlainObject(operand) && '$each' in operand) {
    for (const key of Object.keys(operand)) {
      if (!PUSH_MODIFIERS.has(key)) throw mongoError('BadValue', `Unrecognized clause in $push: ${key}`);
    }
    if (!Array.isArray(operand.$each)) {
      throw mongoError('BadValue', `The argument to $each in $push must be an array but it was of type: ${bsonTypeName(operand.$each)}`);
    }
    items = operand.$each;
    if (operand.$position !== undefined) position = integer('$position', operand.$position);
    if (operand.$slice !== undefined) slice = integer('$slice', operand.$slice);
    if (operand.$sort !== undefined) sort = pushSorter(operand.$sort);
  }
  return {
    creates: true,
    apply(current, exists, path, ctx) {
      let arr = exists ? [...requireArray(current, path, ctx)] : [];
      const added = items.map(cloneValue);
      if (position === undefined) arr.push(...added);
      else {
        const at = position < 0 ? Math.max(0, arr.length + position) : Math.min(position, arr.length);
        arr.splice(at, 0, ...added);
      }
      if (sort) arr = sort(arr);
      if (slice !== undefined) arr = slice >= 0 ? arr.slice(0, slice) : arr.slice(Math.max(0, arr.length + slice));
      return { kind: 'set', value: arr };
    },
  };
};

const addToSet: FieldOperatorCompiler = (operand) => {
  let items: unknown[] = [operand];
  if (isPlainObject(operand) && '$each' in operand) {
    if (!Array.isArray(operand.$each)) {
      throw mongoError('TypeMismatch', `The argument to $each in $addToSet must be an array but it was of type ${bsonTypeName(operand.$each)}`);
    }
    items = operand.$each;
  }
  return {
    creates: true,
    apply(current, exists, path, ctx) {
      const arr = exists ? [...requireArray(current, path, ctx)] : [];
      let changed = !exists;
      for (const item of items) {
        if (!arr.some((v) => valuesEqual(v, item, ctx.collation))) {
          arr.push(cloneValue(item));
          changed = true;
        }
      }
      return changed ? { kind: 'set', value: arr } : { kind: 'none' };
    },
  };
};

/**
 * Operators that only stand at a query's top level. A `$pull` condition
 * starting with one ({$or: [{x: 1}, {y: 2}]}) is a query on each element
 * document, as mongod's PullNode decides by the first field's name.
 */
const TOP_LEVEL_OPERATORS = new Set(['$or', '$and', '$nor', '$expr', '$comment', '$where', '$text', '$jsonSchema']);

/** Builds the element test of `$pull`: a query on sub-documents, operators on values, or equality. */
function pullTest(operand: unknown, collation: ApplyContext['collation']): (el: unknown) => boolean {
  if (isRegexValue(operand)) {
    const re = regexOf(operand);
    return (el) => regexMatches(re, el);
  }
  if (isOperatorObject(operand) && !TOP_LEVEL_OPERATORS.has(Object.keys(operand)[0]!)) {
    const m = compileFilter({ v: operand }, { collation });
    return (el) => m({ v: el });
  }
  if (isPlainObject(operand)) {
    const m = compileFilter(operand, { collation });
    return (el) => isPlainObject(el) && m(el);
  }
  return (el) => valuesEqual(el, operand, collation);
}

function removing(select: (ctx: ApplyContext) => (el: unknown) => boolean): FieldAction {
  return {
    creates: false,
    apply(current, exists, _path, ctx) {
      if (!exists) return { kind: 'none' };
      if (!Array.isArray(current)) throw mongoError('BadValue', 'Cannot apply $pull to a non-array value');
      const test = select(ctx);
      const kept = current.filter((el) => !test(el));
      return kept.length === current.length ? { kind: 'none' } : { kind: 'set', value: kept };
    },
  };
}

const pull: FieldOperatorCompiler = (operand) => removing((ctx) => pullTest(operand, ctx.collation));

const pullAll: FieldOperatorCompiler = (operand) => {
  if (!Array.isArray(operand)) {
    throw mongoError('BadValue', `$pullAll requires an array argument but was given a ${bsonTypeName(operand)}`);
  }
  return removing((ctx) => (el) => operand.some((v) => valuesEqual(el, v, ctx.collation)));
};

const pop: FieldOperatorCompiler = (operand) => {
  const n = isNumeric(operand) ? toDouble(operand) : Number.NaN;
  if (n !== 1 && n !== -1) throw mongoError('FailedToParse', `$pop expects 1 or -1, found: ${formatValue(operand)}`);
  return {
    creates: false,
    apply(current, exists, path) {
      if (!exists) return { kind: 'none' };
      if (!Array.isArray(current)) {
        throw mongoError('TypeMismatch', `Path '${path}' contains an element of non-array type '${bsonTypeName(current)}'`);
      }
      if (current.length === 0) return { kind: 'none' };
      return { kind: 'set', value: n === 1 ? current.slice(0, -1) : current.slice(1) };
    },
  };
};

export const arrayUpdateOperators: Record<string, FieldOperatorCompiler> = {
  $push: push,
  $addToSet: addToSet,
  $pull: pull,
  $pullAll: pullAll,
  $pop: pop,
};
