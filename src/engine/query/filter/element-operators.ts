import { mongoError } from '../../errors.js';
import { BSON_TYPE_NUMBERS, bsonTypeName } from '../type-names.js';
import { isNumeric, toDouble } from '../values.js';
import { anyCandidate, type FieldOperator } from './filter-types.js';

/** Element query operators: $exists $type. */

function typeAccepts(spec: unknown): (name: string) => boolean {
  if (typeof spec === 'string') {
    if (spec === 'number') return (n) => n === 'int' || n === 'long' || n === 'double' || n === 'decimal';
    if (!(spec in BSON_TYPE_NUMBERS)) throw mongoError('BadValue', `Unknown type name alias: ${spec}`);
    return (n) => n === spec;
  }
  if (isNumeric(spec)) {
    const code = toDouble(spec);
    const name = Object.keys(BSON_TYPE_NUMBERS).find((k) => BSON_TYPE_NUMBERS[k] === code);
    if (!name) throw mongoError('BadValue', `Invalid numerical type code: ${code}`);
    return (n) => n === name;
  }
  throw mongoError('TypeMismatch', 'type must be represented as a number or a string');
}

export const elementOperators: Record<string, FieldOperator> = {
  $exists: (operand) => {
    const want = !(operand === false || operand === null || operand === undefined || (isNumeric(operand) && toDouble(operand) === 0));
    return (leaves) => leaves.some((v) => v !== undefined) === want;
  },
  $type: (operand) => {
    const specs = Array.isArray(operand) ? operand : [operand];
    const accepts = specs.map(typeAccepts);
    return anyCandidate((v) => {
      const name = bsonTypeName(v);
      return name !== undefined && accepts.some((a) => a(name));
    });
  },
};
