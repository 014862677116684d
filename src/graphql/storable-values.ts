import type { FieldError } from '../errors/index.js';

/** In a `u` regular expression a pair is one code point: only an unpaired surrogate matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Argument values that storage would not keep as given, refused for every
 * operation before it runs (400 naming the field and the rule), so that what
 * is accepted is stored and answered as sent:
 * - rule `wellFormed`: a string holding a lone surrogate (`"\ud800"` in JSON
 *   or a GraphQL string). UTF-8, and so BSON, cannot hold one: the driver
 *   would store U+FFFD instead, and two different passwords would hash alike;
 * - rule `finite`: a number that is not finite (`1e400` in JSON reads as
 *   Infinity): BSON would store it, JSON answers it as null. GraphQL's Int and
 *   Float already refuse these; free-form JSON (`JSONObject`) does not.
 * Typed input fields are named by their path (`items.0.name`); inside
 * free-form JSON (a plain object, as the JSON scalars give it; typed inputs
 * are class instances) by the argument that holds it, since its keys are
 * values and a value is never repeated back.
 */
export function unstorableValueProblems(args: object): FieldError[] {
  const problems = new Map<string, FieldError>();
  const refuse = (field: string, rule: 'wellFormed' | 'finite', inJson: boolean) => {
    const key = `${field}\u0000${rule}`;
    if (problems.has(key)) return;
    const what = inJson ? `${field} keys and strings` : field;
    const message =
      rule === 'wellFormed'
        ? `${what} must be well-formed Unicode text: no lone surrogate (a \\uD800-\\uDFFF escape without its pair)`
        : `${field} may hold only finite numbers (such as 1e400 is not)`;
    problems.set(key, { field, rule, message });
  };
  // Iterative: free-form JSON may nest as deep as a body may.
  const stack: { value: unknown; field: string; inJson: boolean }[] = Object.entries(args).map(([name, value]) => ({ value, field: name, inJson: false }));
  while (stack.length > 0) {
    const { value, field, inJson } = stack.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) refuse(field, 'wellFormed', inJson);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) refuse(field, 'finite', inJson);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, field: inJson ? field : `${field}.${index}`, inJson }));
    } else if (value !== null && typeof value === 'object' && !(value instanceof Date) && !ArrayBuffer.isView(value)) {
      const json = inJson || isPlainObject(value);
      for (const [key, inner] of Object.entries(value)) {
        if (json && LONE_SURROGATE.test(key)) refuse(field, 'wellFormed', true);
        stack.push({ value: inner, field: json ? field : `${field}.${key}`, inJson: json });
      }
    }
  }
  return [...problems.values()];
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
