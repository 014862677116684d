import { mongoError } from '../../errors.js';
import { formatValue } from '../format.js';
import { isArrayIndex } from '../path.js';
import { isPlainObject, ownField, setField } from '../values.js';
import type { Document } from '../types.js';

/**
 * Concrete-path access for updates: locating (and creating) the slot a path
 * names, and writing or removing a value there. Positional tokens are
 * resolved before (apply-update.ts); these paths hold only field names and
 * array indexes.
 */

export interface Slot {
  container: Document | unknown[];
  key: string;
  exists: boolean;
  value: unknown;
}

function notViable(key: string, parentKey: string, parent: unknown): Error {
  return mongoError('PathNotViable', `Cannot create field '${key}' in element {${parentKey}: ${formatValue(parent)}}`);
}

/** The slot at `parts`; with `create`, missing intermediate documents are made. Undefined when unreachable. */
export function locate(doc: Document, parts: string[], create: boolean): Slot | undefined {
  let container: Document | unknown[] = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const key = parts[i]!;
    let next: unknown;
    if (Array.isArray(container)) {
      if (!isArrayIndex(key)) {
        if (create) throw notViable(key, parts[i - 1] ?? '', container);
        return undefined;
      }
      next = container[Number(key)];
    } else {
      next = ownField(container, key);
    }
    if (next === undefined || (next === null && create)) {
      if (!create) return undefined;
      if (next === null) throw notViable(parts[i + 1]!, key, null);
      next = {};
      writeSlot(container, key, next);
    } else if (!isPlainObject(next) && !Array.isArray(next)) {
      if (create) throw notViable(parts[i + 1]!, key, next);
      return undefined;
    }
    container = next as Document | unknown[];
  }
  const key = parts[parts.length - 1]!;
  if (Array.isArray(container)) {
    if (!isArrayIndex(key)) {
      if (create) throw notViable(key, parts[parts.length - 2] ?? '', container);
      return undefined;
    }
    const idx = Number(key);
    return { container, key, exists: idx < container.length, value: container[idx] };
  }
  return { container, key, exists: Object.hasOwn(container, key), value: ownField(container, key) };
}

/** mongod's cap on the nulls an update may add before an array index (kMaxPaddingAllowed). */
const MAX_ARRAY_PADDING = 1_500_000;

function writeSlot(container: Document | unknown[], key: string, value: unknown): void {
  if (Array.isArray(container)) {
    const idx = Number(key);
    // Without the cap, `{$set: {'a.999999999': 1}}` would fill the heap and kill the process.
    if (idx - container.length > MAX_ARRAY_PADDING) {
      throw mongoError('CannotBackfillArray', `can't backfill more than ${MAX_ARRAY_PADDING} elements`);
    }
    while (container.length < idx) container.push(null);
    container[idx] = value;
  } else {
    setField(container, key, value);
  }
}

export function writeValue(slot: Slot, value: unknown): void {
  writeSlot(slot.container, slot.key, value);
}

/** `$unset` semantics: an array element becomes null, a field is removed. */
export function removeValue(slot: Slot): void {
  if (Array.isArray(slot.container)) slot.container[Number(slot.key)] = null;
  else delete slot.container[slot.key];
}
