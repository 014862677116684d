import { Decimal128 } from 'bson';
import { makeDouble, makeInteger, numericType, toBigInt, toDouble } from './values.js';

/**
 * Arithmetic with mongod's result types: int op int -> int (long on
 * overflow), long involved -> long, double involved -> double, decimal
 * involved -> decimal. Returns undefined when an int64 result overflows.
 */

type Op = 'add' | 'mul';

function decimalParts(value: unknown): { coef: bigint; exp: number } | undefined {
  const s = numericType(value) === 'decimal' ? (value as Decimal128).toString() : String(toDouble(value));
  const m = /^(-)?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  const coef = BigInt(m[2] + frac) * (m[1] ? -1n : 1n);
  return { coef, exp: Number(m[4] ?? 0) - frac.length };
}

function decimalOp(a: unknown, b: unknown, op: Op): Decimal128 {
  const x = decimalParts(a);
  const y = decimalParts(b);
  if (!x || !y) return Decimal128.fromString('NaN');
  let coef: bigint;
  let exp: number;
  if (op === 'mul') {
    coef = x.coef * y.coef;
    exp = x.exp + y.exp;
  } else {
    exp = Math.min(x.exp, y.exp);
    coef = x.coef * 10n ** BigInt(x.exp - exp) + y.coef * 10n ** BigInt(y.exp - exp);
  }
  const neg = coef < 0n;
  const digits = (neg ? -coef : coef).toString();
  return Decimal128.fromString(`${neg ? '-' : ''}${digits}E${exp}`);
}

export function arithmetic(a: unknown, b: unknown, op: Op): unknown {
  const ta = numericType(a);
  const tb = numericType(b);
  if (ta === 'decimal' || tb === 'decimal') return decimalOp(a, b, op);
  if (ta === 'double' || tb === 'double') {
    const x = toDouble(a);
    const y = toDouble(b);
    return makeDouble(op === 'add' ? x + y : x * y);
  }
  const x = toBigInt(a)!;
  const y = toBigInt(b)!;
  const r = op === 'add' ? x + y : x * y;
  return makeInteger(r, ta === 'long' || tb === 'long' ? 'long' : 'int');
}

/** The zero of a number's type (for $mul on a missing field). */
export function zeroLike(value: unknown): unknown {
  switch (numericType(value)) {
    case 'decimal':
      return Decimal128.fromString('0');
    case 'double':
      return makeDouble(0);
    case 'long':
      return makeInteger(0n, 'long');
    default:
      return 0;
  }
}
