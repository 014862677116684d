import { mongoError } from '../../errors.js';
import { approximateBsonSize } from '../bounded-sort.js';
import { evaluateExpression } from '../expression.js';
import { isNumeric, isPlainObject, toDouble } from '../values.js';
import type { Document } from '../types.js';
import type { PipelineContext } from './pipeline-types.js';

/**
 * $group's memory bound, as mongod's internalDocumentSourceGroupMaxMemoryBytes
 * (100 MiB): the groups' keys and what their accumulators hold. Past it,
 * without `allowDiskUse: true`, the stage fails with
 * QueryExceededMemoryLimitNoDiskUseAllowed (292); with it the engine keeps
 * going in memory (it does not spill), as its sort does (bounded-sort.ts).
 *
 * What an accumulator holds is estimated from the values it is given:
 * $push/$addToSet keep every one, the n-accumulators up to n, the others
 * ($first, $max, $mergeObjects, ...) about the largest; counters and sums
 * a few bytes.
 */

export const MAX_GROUP_BYTES = 100 * 1024 * 1024;

const KEEPS_ALL = new Set(['$push', '$addToSet']);
const KEEPS_N = new Set(['$firstN', '$lastN', '$maxN', '$minN', '$topN', '$bottomN']);
const KEEPS_ONE = new Set(['$first', '$last', '$max', '$min', '$top', '$bottom', '$mergeObjects']);
const SCALAR_STATE_BYTES = 16;

interface Holding {
  field: number;
  kind: 'all' | 'n' | 'one';
  /** The expression of the value held. */
  value: unknown;
  n: number;
}

interface FieldState {
  count: number;
  largest: number;
}

/** Returns the meter to call once per document and group, or undefined when no bound applies. */
export function groupMemoryMeter(spec: Document, fields: string[], ctx: PipelineContext): ((doc: Document, groupKey: string, id: unknown, isNew: boolean) => void) | undefined {
  if (ctx.allowDiskUse === true) return undefined;
  const limit = ctx.maxGroupBytes ?? MAX_GROUP_BYTES;
  const holdings = fields.map((f, i) => holdingOf(i, spec[f])).filter((h): h is Holding => h !== undefined);
  const state = new Map<string, FieldState>();
  let total = 0;
  return (doc, groupKey, id, isNew) => {
    if (isNew) total += approximateBsonSize(id) + SCALAR_STATE_BYTES * fields.length;
    for (const h of holdings) {
      const key = `${h.field}:${groupKey}`;
      let s = state.get(key);
      if (!s) state.set(key, (s = { count: 0, largest: 0 }));
      const size = approximateBsonSize(evaluateExpression(doc, h.value, ctx.variables));
      if (h.kind === 'all' || (h.kind === 'n' && s.count < h.n)) {
        total += size;
        s.count++;
      } else if (h.kind === 'one' && size > s.largest) {
        total += size - s.largest;
        s.largest = size;
      }
    }
    if (total > limit) {
      throw mongoError(
        'QueryExceededMemoryLimitNoDiskUseAllowed',
        "Exceeded memory limit for $group, but didn't allow external sort. Pass allowDiskUse:true to opt in.",
      );
    }
  };
}

function holdingOf(field: number, accumulator: unknown): Holding | undefined {
  if (!isPlainObject(accumulator)) return undefined;
  const [op] = Object.keys(accumulator);
  const arg = accumulator[op!];
  if (KEEPS_ALL.has(op!)) return { field, kind: 'all', value: arg, n: 0 };
  if (KEEPS_ONE.has(op!)) return { field, kind: 'one', value: isPlainObject(arg) && 'output' in arg ? arg.output : arg, n: 0 };
  if (KEEPS_N.has(op!) && isPlainObject(arg)) {
    const n = isNumeric(arg.n) ? toDouble(arg.n) : Number.POSITIVE_INFINITY;
    return { field, kind: 'n', value: 'output' in arg ? arg.output : arg.input, n };
  }
  return undefined;
}
