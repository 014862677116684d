import { Decimal128 } from 'bson';
import { arithmetic } from './arithmetic.js';
import { isNumeric, makeDouble, makeInteger, numericType, toBigInt, toDouble } from './values.js';

/**
 * Numeric expression operators with mongod's result types, for operands
 * that are all numbers: int/long stay integers (long past int32, double past
 * int64), a double gives a double (also when integral: 10 / 2 is 5.0), a
 * Decimal128 gives a Decimal128 computed exactly in decimal. Undefined means
 * "not only numbers" (dates, null, ...): the caller falls back to mingo,
 * which also reports the errors (division by zero, ...).
 */

type Num = unknown;

const PRECISION = 34;

interface Dec {
  coef: bigint;
  exp: number;
}

function decOf(value: Num): Dec | undefined {
  const s = numericType(value) === 'decimal' ? (value as Decimal128).toString() : String(toDouble(value));
  const m = /^(-)?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  return { coef: BigInt(m[2] + frac) * (m[1] ? -1n : 1n), exp: Number(m[4] ?? 0) - frac.length };
}

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/** Divides rounding half to even (IEEE 754's default, and Decimal128's). */
function divRoundEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n - q * d;
  const twice = abs(r) * 2n;
  const ad = abs(d);
  if (twice < ad || (twice === ad && q % 2n === 0n)) return q;
  return q + ((n < 0n) !== (d < 0n) ? -1n : 1n);
}

function makeDecimal(coef: bigint, exp: number): Decimal128 {
  let c = coef;
  let e = exp;
  const digits = abs(c).toString().length;
  if (digits > PRECISION) {
    const drop = digits - PRECISION;
    c = divRoundEven(c, 10n ** BigInt(drop));
    e += drop;
  }
  return Decimal128.fromString(`${c < 0n ? '-' : ''}${abs(c)}E${e}`);
}

function anyType(values: Num[], type: string): boolean {
  return values.some((v) => numericType(v) === type);
}

/** Integer result of int/long operands: int32 or long as mongod widens, double past int64. */
function integerResult(n: bigint, values: Num[]): unknown {
  return makeInteger(n, anyType(values, 'long') ? 'long' : 'int') ?? makeDouble(Number(n));
}

function subtract(a: Num, b: Num): unknown {
  if (anyType([a, b], 'decimal')) {
    const y = decOf(b)!;
    return arithmetic(a, makeDecimal(-y.coef, y.exp), 'add');
  }
  if (anyType([a, b], 'double')) return makeDouble(toDouble(a) - toDouble(b));
  return integerResult(toBigInt(a)! - toBigInt(b)!, [a, b]);
}

function divide(a: Num, b: Num): unknown {
  if (toDouble(b) === 0) return undefined;
  if (!anyType([a, b], 'decimal')) return makeDouble(toDouble(a) / toDouble(b));
  const x = decOf(a)!;
  const y = decOf(b)!;
  // Scale the dividend so the quotient carries more digits than Decimal128 keeps.
  const scale = PRECISION + 2 + Math.max(0, abs(y.coef).toString().length - abs(x.coef).toString().length);
  const q = divRoundEven(x.coef * 10n ** BigInt(scale), y.coef);
  return normalizeDecimal(q, x.exp - y.exp - scale);
}

/** Strips trailing zeros a scaled division introduced (never past the operands' own exponent). */
function normalizeDecimal(coef: bigint, exp: number): Decimal128 {
  let c = coef;
  let e = exp;
  while (c !== 0n && c % 10n === 0n && e < 0) {
    c /= 10n;
    e++;
  }
  if (c === 0n) e = Math.min(0, Math.max(e, 0));
  return makeDecimal(c, e);
}

function mod(a: Num, b: Num): unknown {
  if (toDouble(b) === 0) return undefined;
  if (anyType([a, b], 'decimal')) {
    const x = decOf(a)!;
    const y = decOf(b)!;
    const e = Math.min(x.exp, y.exp);
    const xc = x.coef * 10n ** BigInt(x.exp - e);
    const yc = y.coef * 10n ** BigInt(y.exp - e);
    return makeDecimal(xc % yc, e);
  }
  if (anyType([a, b], 'double')) return makeDouble(toDouble(a) % toDouble(b));
  return integerResult(toBigInt(a)! % toBigInt(b)!, [a, b]);
}

function absolute(a: Num): unknown {
  if (numericType(a) === 'decimal') {
    const x = decOf(a)!;
    return makeDecimal(abs(x.coef), x.exp);
  }
  if (numericType(a) === 'double') return makeDouble(Math.abs(toDouble(a)));
  return integerResult(abs(toBigInt(a)!), [a]);
}

type Rounding = 'ceil' | 'floor' | 'trunc' | 'even';

/** `coef × 10^exp` rounded to a multiple of 10^at. */
function roundDec(x: Dec, at: number, mode: Rounding): Dec {
  if (x.exp >= at) return x;
  const unit = 10n ** BigInt(at - x.exp);
  let q = x.coef / unit;
  const r = x.coef - q * unit;
  if (r !== 0n) {
    if (mode === 'ceil' && r > 0n) q += 1n;
    else if (mode === 'floor' && r < 0n) q -= 1n;
    else if (mode === 'even') q = divRoundEven(x.coef, unit);
  }
  return { coef: q, exp: at };
}

function rounding(a: Num, place: number, mode: Rounding): unknown {
  const type = numericType(a);
  if (type === 'decimal') {
    const r = roundDec(decOf(a)!, -place, mode);
    return makeDecimal(r.coef, r.exp);
  }
  if (type === 'double') {
    const x = toDouble(a);
    if (!Number.isFinite(x)) return makeDouble(x);
    if (mode === 'ceil') return makeDouble(Math.ceil(x));
    if (mode === 'floor') return makeDouble(Math.floor(x));
    const d = decOf(a);
    if (!d) return undefined;
    const r = roundDec(d, -place, mode);
    return makeDouble(Number(`${r.coef}e${r.exp}`));
  }
  if (place >= 0) return a;
  const r = roundDec({ coef: toBigInt(a)!, exp: 0 }, -place, mode);
  return integerResult(r.coef * 10n ** BigInt(r.exp), [a]);
}

function sumOf(values: Num[]): unknown {
  let total: unknown = 0;
  for (const v of values) if (isNumeric(v)) total = arithmetic(total, v, 'add') ?? makeDouble(toDouble(total) + toDouble(v));
  return total;
}

function avgOf(values: Num[]): unknown {
  const nums = values.filter(isNumeric);
  if (nums.length === 0) return null;
  const total = sumOf(nums);
  if (numericType(total) === 'decimal') return divide(total, nums.length);
  return makeDouble(toDouble(total) / nums.length);
}

const placeOf = (args: Num[]): number | undefined => {
  if (args.length < 2) return 0;
  const p = args[1];
  if (!isNumeric(p)) return undefined;
  const n = toDouble(p);
  return Number.isInteger(n) && n >= -20 && n < 100 ? n : undefined;
};

/** The typed result of `name` over evaluated operands, or undefined to let mingo answer. */
export function typedNumericOperator(name: string, args: Num[]): unknown {
  switch (name) {
    case '$sum':
    case '$avg': {
      // One operand that is an array is summed element-wise; non-numbers are ignored, as in mongod.
      const values = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
      return name === '$sum' ? sumOf(values) : avgOf(values);
    }
  }
  if (args.length === 0 || !args.every(isNumeric)) return undefined;
  switch (name) {
    case '$subtract':
      return args.length === 2 ? subtract(args[0], args[1]) : undefined;
    case '$divide':
      return args.length === 2 ? divide(args[0], args[1]) : undefined;
    case '$mod':
      return args.length === 2 ? mod(args[0], args[1]) : undefined;
    case '$abs':
      return args.length === 1 ? absolute(args[0]) : undefined;
    case '$ceil':
    case '$floor':
      return args.length === 1 ? rounding(args[0], 0, name === '$ceil' ? 'ceil' : 'floor') : undefined;
    case '$round':
    case '$trunc': {
      const place = placeOf(args);
      if (place === undefined || args.length > 2) return undefined;
      return rounding(args[0], place, name === '$round' ? 'even' : 'trunc');
    }
    default:
      return undefined;
  }
}

/** Operators typedNumericOperator answers for. */
export const TYPED_NUMERIC_OPERATORS = new Set(['$sum', '$avg', '$subtract', '$divide', '$mod', '$abs', '$ceil', '$floor', '$round', '$trunc']);
