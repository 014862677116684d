import type { Schema } from 'mongoose';

/**
 * mongoose's `Model.applyDefaults` for a lean record (its applyDefaultsToPOJO),
 * with the schema walked once instead of on every record. That walk, splitting
 * and re-joining every path of the schema for each record, was about 5% of a
 * list page's CPU; most paths have no default and can change nothing.
 *
 * Same result as mongoose's: a missing field with a default gets
 * `getDefault(record, false, { skipCast: true })`, a missing parent of a
 * nested path becomes `{}`, and sub-documents (single or in arrays) get
 * their own schema's defaults. Only the paths that can do none of this are
 * left out: single-segment paths without a default and without a schema.
 */
export function leanDefaults<TRecord extends object>(schema: Schema): (record: TRecord) => TRecord {
  const steps = planFor(schema);
  return (record) => {
    fill(record as Record<string, unknown>, steps);
    return record;
  };
}

/**
 * What applyDefaultsToPOJO reads of a schema path: mongoose internals its
 * typings leave out (test/shared/lean-defaults.test.ts holds the two answers
 * equal, so a mongoose upgrade that changes them fails there).
 */
interface PathType {
  splitPath(): string[];
  defaultValue?: unknown;
  getDefault(record: object, init: boolean, options: { skipCast: boolean }): unknown;
  $isSingleNested?: boolean;
  $isMongooseDocumentArray?: boolean;
  schema?: Schema;
}

interface Step {
  pieces: readonly string[];
  type: PathType;
  /** The sub-document's steps (single nested or document array), else null. */
  sub: Step[] | null;
}

const plans = new WeakMap<Schema, Step[]>();

function planFor(schema: Schema): Step[] {
  let steps = plans.get(schema);
  if (steps) return steps;
  // Stored before it is filled: a schema that holds itself reuses this very list.
  plans.set(schema, (steps = []));
  for (const path of Object.keys(schema.paths)) {
    const type = schema.paths[path] as unknown as PathType;
    const pieces = type.splitPath();
    const hasSchema = Boolean((type.$isSingleNested || type.$isMongooseDocumentArray) && type.schema);
    if (pieces.length === 1 && type.defaultValue === undefined && !hasSchema) continue;
    steps.push({ pieces, type, sub: hasSchema ? planFor(type.schema!) : null });
  }
  return steps;
}

/** One record through the steps, as applyDefaultsToPOJO does it. */
function fill(record: Record<string, unknown> | null | undefined, steps: readonly Step[]): void {
  if (record == null) return;
  for (const { pieces, type, sub } of steps) {
    let target: Record<string, unknown> = record;
    const last = pieces.length - 1;
    let i = 0;
    for (; i < last && target != null; i += 1) {
      target[pieces[i]!] ??= {};
      target = target[pieces[i]!] as Record<string, unknown>;
    }
    if (target == null) continue;
    let value = target[pieces[last]!];
    if (value === undefined) {
      value = type.getDefault(record, false, { skipCast: true });
      if (value === undefined) continue;
      target[pieces[last]!] = value;
    }
    if (!sub) continue;
    if (type.$isSingleNested) fill(value as Record<string, unknown>, sub);
    else if (Array.isArray(value)) for (const element of value) fill(element as Record<string, unknown>, sub);
  }
}
