import { mongoError } from '../../errors.js';
import { isNumeric, isPlainObject, setField, toDouble } from '../values.js';
import type { Document } from '../types.js';
import { findTextLanguage } from './text-languages.js';

/**
 * Text index specifications, as mongod stores them: the text fields of the
 * requested key become `_fts: "text", _ftsx: 1` (other ascending/descending
 * fields stay before or after them) and move into `weights` (1 unless the
 * `weights` option says otherwise; weights are whole numbers, sorted by
 * field name; `$**` indexes every string); `default_language` ("english"),
 * `language_override` ("language") and `textIndexVersion` (3) are filled in.
 * A spec already in that form (a restored or renamed index) passes through.
 * Every refusal is CannotCreateIndex (67), with mongod's message.
 */

/** Anything that can be an index spec (storage's IndexSpec is one). */
type Spec = { key: Record<string, unknown>; [option: string]: unknown };

/** Weights must stay below this (mongod's MAX_WORD_WEIGHT). */
const MAX_WEIGHT = 100000;
export const WILDCARD = '$**';

const refuse = (message: string): Error => mongoError('CannotCreateIndex', message);

/** Whether an index key pattern makes a text index (a `"text"` part, or the stored `_fts`). */
export function isTextIndexKey(key: Record<string, unknown>): boolean {
  return Object.entries(key).some(([field, value]) => value === 'text' || field === '_fts');
}

export function isTextIndexSpec(spec: Spec): boolean {
  return isTextIndexKey(spec.key);
}

const isReserved = (field: string): boolean => field === '_fts' || field === '_ftsx';

/** The stored key pattern and the text fields (weight 1) the requested key names. */
function fixKey(key: Record<string, unknown>): { key: Document; weights: Map<string, number> } {
  const fixed: Document = {};
  const weights = new Map<string, number>();
  for (const [field, value] of Object.entries(key)) {
    if (field === '_fts') {
      if (value !== 'text') throw refuse('expecting _fts:"text"');
      fixed._fts = 'text';
    } else if (field === '_ftsx') {
      if (!isNumeric(value) || Math.trunc(toDouble(value)) !== 1) throw refuse('expecting _ftsx:1');
      fixed._ftsx = 1;
    } else if (value === 'text') {
      if (!('_fts' in fixed)) Object.assign(fixed, { _fts: 'text', _ftsx: 1 });
      weights.set(field, 1);
    } else if (typeof value === 'string') {
      throw refuse("Can't use more than one index plugin for a single index.");
    } else {
      const n = isNumeric(value) ? Math.trunc(toDouble(value)) : Number.NaN;
      if (n !== 1 && n !== -1) throw refuse('expected value 1 or -1 for non-text key in compound index');
      setField(fixed, field, value);
    }
  }
  checkLayout(Object.entries(key));
  return { key: fixed, weights };
}

/** Fields before the text fields, the text fields (or `_fts`, `_ftsx`), fields after: nothing else. */
function checkLayout(entries: Array<[string, unknown]>): void {
  let i = 0;
  for (; i < entries.length && typeof entries[i]![1] !== 'string'; i++) {
    if (isReserved(entries[i]![0])) throw refuse('text index with reserved fields _fts/_ftsx not allowed');
  }
  if (i === entries.length) throw refuse('expected additional fields in text index key pattern');
  if (entries[i]![0] === '_fts') {
    if (entries[i + 1]?.[0] !== '_ftsx') throw refuse('expected _ftsx after _fts');
    i += 2;
  } else {
    for (; i < entries.length && typeof entries[i]![1] === 'string'; i++) {
      if (isReserved(entries[i]![0])) throw refuse('text index with reserved fields _fts/_ftsx not allowed');
    }
  }
  for (; i < entries.length; i++) {
    if (typeof entries[i]![1] === 'string') throw refuse("'text' fields in index must all be adjacent");
    if (isReserved(entries[i]![0])) throw refuse('text index with reserved fields _fts/_ftsx not allowed');
  }
}

/** The `weights` option merged over the key's text fields, validated and sorted by field name. */
function fixWeights(option: unknown, fromKey: Map<string, number>): Document {
  const weights = new Map(fromKey);
  if (isPlainObject(option)) {
    for (const [field, value] of Object.entries(option)) {
      if (!isNumeric(value)) throw refuse('weight for text index needs numeric type');
      weights.set(field, Math.trunc(toDouble(value)));
    }
  } else if (option === WILDCARD) {
    weights.set(WILDCARD, 1);
  } else if (option !== undefined) {
    throw refuse("text index option 'weights' must be an object");
  }
  if (weights.size === 0) throw refuse("text index option 'weights' must specify fields or the wildcard");
  const out: Document = {};
  for (const field of [...weights.keys()].sort(byBytes)) {
    const weight = weights.get(field)!;
    if (!(weight > 0 && weight < MAX_WEIGHT)) {
      throw refuse(`text index weight must be in the exclusive interval (0,${MAX_WEIGHT}) but found: ${weight}`);
    }
    if (field !== WILDCARD) checkWeightPath(field);
    setField(out, field, weight);
  }
  return out;
}

function checkWeightPath(field: string): void {
  if (field === '') throw refuse('weight cannot be on an empty field');
  for (const part of field.split('.')) {
    if (part === '') throw refuse('weight cannot have empty path component');
    if (part.startsWith('$')) throw refuse('weight cannot have path component with $ prefix');
  }
}

/** mongod orders weights as byte strings (std::map). */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function fixDefaultLanguage(value: unknown): string {
  if (value === undefined) return 'english';
  if (typeof value !== 'string') throw refuse('default_language needs a string type');
  if (!findTextLanguage(value)) throw refuse('default_language is not valid');
  return value;
}

function fixLanguageOverride(value: unknown): string {
  if (value === undefined) return 'language';
  if (typeof value !== 'string') throw refuse('language_override must be a string');
  if (value === '' || value.startsWith('$') || value.includes('.')) throw refuse('language_override is not valid');
  return value;
}

function fixVersion(value: unknown): number {
  if (value === undefined) return 3;
  if (!isNumeric(value)) throw refuse("text index option 'textIndexVersion' must be a number");
  const version = Math.trunc(toDouble(value));
  if (version !== 2 && version !== 3) throw refuse(`bad textIndexVersion: ${version}`);
  return version;
}

/**
 * The stored form of a text index spec. Options keep their place; the text
 * options the request left out follow, then `textIndexVersion`.
 */
export function fixTextIndexSpec<T extends Spec>(spec: T): T {
  const { key, weights: fromKey } = fixKey(spec.key);
  // Text keys compare binary: on a collection with a default collation the index must say `simple`.
  const collation = spec.collation;
  if (isPlainObject(collation) && collation.locale !== 'simple') {
    throw refuse(`Index type 'text' does not support collation: ${JSON.stringify(collation)}`);
  }
  const fixed: Record<string, unknown> = {
    weights: fixWeights(spec.weights, fromKey),
    default_language: fixDefaultLanguage(spec.default_language),
    language_override: fixLanguageOverride(spec.language_override),
  };
  const version = fixVersion(spec.textIndexVersion);
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(spec)) {
    if (field === 'textIndexVersion') continue;
    out[field] = field === 'key' ? key : field in fixed ? fixed[field] : spec[field];
  }
  for (const field of Object.keys(fixed)) if (!(field in out)) out[field] = fixed[field];
  out.textIndexVersion = version;
  return out as T;
}
