import { Timestamp } from 'bson';
import { mongoError } from '../../errors.js';
import { arithmetic, zeroLike } from '../arithmetic.js';
import { compareValues } from '../compare.js';
import { formatValue } from '../format.js';
import { bsonTypeName } from '../type-names.js';
import { cloneValue, isNumeric, isPlainObject, makeInteger, numericType, toBigInt } from '../values.js';
import type { FieldAction, FieldOperatorCompiler } from './update-types.js';

/** Field update operators: $set $setOnInsert $unset $inc $mul $min $max $currentDate ($rename lives in apply-update). */

const set: FieldOperatorCompiler = (operand) => ({
  creates: true,
  apply: () => ({ kind: 'set', value: cloneValue(operand) }),
});

function arithmeticOperator(name: '$inc' | '$mul', op: 'add' | 'mul'): FieldOperatorCompiler {
  const verb = name === '$inc' ? 'increment' : 'multiply';
  return (operand, path) => {
    if (!isNumeric(operand)) {
      throw mongoError('TypeMismatch', `Cannot ${verb} with non-numeric argument: {${path}: ${formatValue(operand)}}`);
    }
    return {
      creates: true,
      apply(current, exists, _p, ctx) {
        if (!exists) return { kind: 'set', value: op === 'add' ? cloneValue(operand) : zeroLike(operand) };
        if (!isNumeric(current)) {
          throw mongoError(
            'TypeMismatch',
            `Cannot apply ${name} to a value of non-numeric type. ${formatValue(ctx.docId)} has the field '${path.split('.').pop()}' of non-numeric type ${bsonTypeName(current)}`,
          );
        }
        const value = arithmetic(current, operand, op);
        if (value === undefined) {
          throw mongoError('BadValue', `Failed to apply ${name} operations to current value (${formatValue(current)}) for document ${formatValue(ctx.docId)}`);
        }
        return { kind: 'set', value };
      },
    };
  };
}

function boundOperator(keepNew: (cmp: number) => boolean): FieldOperatorCompiler {
  return (operand) => ({
    creates: true,
    apply(current, exists, _p, ctx) {
      if (!exists || keepNew(compareValues(operand, current, ctx.collation))) return { kind: 'set', value: cloneValue(operand) };
      return { kind: 'none' };
    },
  });
}

const currentDate: FieldOperatorCompiler = (operand, path) => {
  let type: 'date' | 'timestamp' = 'date';
  if (isPlainObject(operand)) {
    const t = operand.$type;
    if (Object.keys(operand).length !== 1 || (t !== 'date' && t !== 'timestamp')) {
      throw mongoError('BadValue', "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}");
    }
    type = t;
  } else if (typeof operand !== 'boolean') {
    throw mongoError('BadValue', `${path} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).`);
  }
  return {
    creates: true,
    apply: (_c, _e, _p, ctx) => ({
      kind: 'set',
      value: type === 'date' ? new Date(ctx.now.getTime()) : new Timestamp({ t: Math.floor(ctx.now.getTime() / 1000), i: 1 }),
    }),
  };
};

const BIT_OPS = new Set(['and', 'or', 'xor']);

/** `$bit: {field: {and|or|xor: int}}`; integers only, long when either side is long. */
const bit: FieldOperatorCompiler = (operand, path) => {
  if (!isPlainObject(operand) || Object.keys(operand).length === 0) {
    throw mongoError('BadValue', `The $bit modifier is not compatible with a ${bsonTypeName(operand)}. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}`);
  }
  const steps = Object.keys(operand).map((op) => {
    const v = operand[op];
    if (!BIT_OPS.has(op)) throw mongoError('BadValue', `The $bit modifier only supports 'and', 'or', and 'xor', not '${op}' which is an unknown operator: {${op}: ${formatValue(v)}}`);
    const t = numericType(v);
    if (t !== 'int' && t !== 'long') {
      throw mongoError('BadValue', `The $bit modifier field must be an Integer(32/64 bit); a '${bsonTypeName(v)}' is not supported here: {${op}: ${formatValue(v)}}`);
    }
    return { op, value: toBigInt(v)!, long: t === 'long' };
  });
  return {
    creates: true,
    apply(current, exists, _p, ctx) {
      const t = exists ? numericType(current) : 'int';
      if (t !== 'int' && t !== 'long') {
        throw mongoError('BadValue', `Cannot apply $bit to a value of non-integral type.${formatValue(ctx.docId)} has the field ${path} of non-integer type ${bsonTypeName(current)}`);
      }
      let n = exists ? toBigInt(current)! : 0n;
      let long = t === 'long';
      for (const s of steps) {
        n = s.op === 'and' ? n & s.value : s.op === 'or' ? n | s.value : n ^ s.value;
        long ||= s.long;
      }
      return { kind: 'set', value: makeInteger(long ? BigInt.asIntN(64, n) : BigInt.asIntN(32, n), long ? 'long' : 'int') };
    },
  };
};

const unset: FieldOperatorCompiler = (): FieldAction => ({
  creates: false,
  apply: (_c, exists) => (exists ? { kind: 'unset' } : { kind: 'none' }),
});

export const fieldOperators: Record<string, FieldOperatorCompiler> = {
  $set: set,
  $setOnInsert: set,
  $unset: unset,
  $inc: arithmeticOperator('$inc', 'add'),
  $mul: arithmeticOperator('$mul', 'mul'),
  $min: boundOperator((c) => c < 0),
  $max: boundOperator((c) => c > 0),
  $currentDate: currentDate,
  $bit: bit,
};
