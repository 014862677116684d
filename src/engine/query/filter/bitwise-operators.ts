import { mongoError } from '../../errors.js';
import { bsonType, isNumeric, numericType, toBigInt, toDouble } from '../values.js';
import { anyCandidate, type FieldOperator } from './filter-types.js';

/** Bitwise query operators: $bitsAllSet $bitsAnySet $bitsAllClear $bitsAnyClear. */

/** The operand as a 64-bit mask: a non-negative integer, a list of bit positions, or BinData. */
function maskOf(name: string, operand: unknown): bigint {
  if (isNumeric(operand)) {
    const n = toBigInt(operand);
    if (n === undefined || n < 0n) throw mongoError('BadValue', `${name} requires a non-negative integer bitmask`);
    return n;
  }
  if (Array.isArray(operand)) {
    let mask = 0n;
    for (const p of operand) {
      const pos = isNumeric(p) ? toDouble(p) : Number.NaN;
      if (!Number.isInteger(pos) || pos < 0) throw mongoError('BadValue', `bit positions must be non-negative integers`);
      if (pos < 64) mask |= 1n << BigInt(pos);
    }
    return mask;
  }
  if (bsonType(operand) === 'Binary') return bytesToBigInt((operand as { buffer: Uint8Array; position: number }).buffer.subarray(0, (operand as { position: number }).position));
  throw mongoError('BadValue', `${name} takes an Array, a number, or a BinData but received: ${String(operand)}`);
}

function bytesToBigInt(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = Math.min(bytes.length, 8) - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

/** A candidate's bits (two's complement for negatives); undefined when it is not an integral number or BinData. */
function bitsOf(value: unknown): bigint | undefined {
  if (bsonType(value) === 'Binary') return bytesToBigInt((value as { buffer: Uint8Array; position: number }).buffer.subarray(0, (value as { position: number }).position));
  if (!isNumeric(value) || numericType(value) === 'decimal') return undefined;
  const n = toBigInt(value);
  return n === undefined ? undefined : BigInt.asUintN(64, n);
}

function bitwise(name: string, test: (bits: bigint, mask: bigint) => boolean): FieldOperator {
  return (operand) => {
    const mask = maskOf(name, operand);
    return anyCandidate((v) => {
      const bits = bitsOf(v);
      return bits !== undefined && test(bits, mask);
    });
  };
}

export const bitwiseOperators: Record<string, FieldOperator> = {
  $bitsAllSet: bitwise('$bitsAllSet', (b, m) => (b & m) === m),
  $bitsAnySet: bitwise('$bitsAnySet', (b, m) => (b & m) !== 0n),
  $bitsAllClear: bitwise('$bitsAllClear', (b, m) => (b & m) === 0n),
  $bitsAnyClear: bitwise('$bitsAnyClear', (b, m) => (b & m) !== m),
};
