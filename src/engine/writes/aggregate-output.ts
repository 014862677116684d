import { mongoError } from '../errors.js';
import { assertValidCollectionName } from '../params/index.js';
import { applyUpdate, evaluateExpression, getPathValues, valuesEqual } from '../query/index.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import { assertNotView, readFirst } from '../reads/index.js';
import type { Storage } from '../storage/types.js';
import { documentCheck } from './document-validation.js';
import { timeSeriesCheck } from './time-series.js';
import { withIdFirst } from './write-batch.js';

/**
 * The writing stages of aggregate, `$out` and `$merge`, run here rather than
 * in the query layer because they go through storage. Both are synchronous.
 */

interface Target {
  db: string;
  coll: string;
}

function parseTarget(value: unknown, defaultDb: string, stage: string): Target {
  if (typeof value === 'string') {
    assertValidCollectionName(value);
    return { db: defaultDb, coll: value };
  }
  if (isPlainObject(value) && typeof value.coll === 'string') {
    assertValidCollectionName(value.coll);
    return { db: typeof value.db === 'string' ? value.db : defaultDb, coll: value.coll };
  }
  throw mongoError('FailedToParse', `${stage} target must be a collection name or {db, coll}`);
}

/** Writes the results of a pipeline into the target of its trailing `{$out}` or `{$merge}` stage. */
export function writeOutput(storage: Storage, db: string, output: Document, results: Document[], bypassValidation: unknown): void {
  if ('$out' in output) writeOut(storage, parseTarget(output.$out, db, '$out'), results, bypassValidation);
  else writeMerge(storage, db, output.$merge, results, bypassValidation);
}

/** $out replaces the target's documents (its indexes stay); on any failure the old content is restored. */
function writeOut(storage: Storage, target: Target, results: Document[], bypassValidation: unknown): void {
  const { db, coll } = target;
  assertNotView(storage, db, coll);
  const old = storage.collection(db, coll) ? [...storage.scan(db, coll)] : [];
  storage.ensureCollection(db, coll);
  const check = documentCheck(storage, db, coll, bypassValidation);
  const checkMeasurement = timeSeriesCheck(storage, db, coll);
  for (const doc of old) storage.remove(db, coll, doc._id, doc);
  try {
    for (const result of results) {
      const doc = withIdFirst(result);
      check(doc);
      checkMeasurement(doc);
      storage.insert(db, coll, doc);
    }
  } catch (err) {
    // Everything there now is what this $out inserted. Removed as scanned, not by _id: in a
    // time-series collection several measurements may share one.
    for (const doc of [...storage.scan(db, coll)]) storage.remove(db, coll, doc._id, doc);
    for (const doc of old) storage.insert(db, coll, doc);
    throw err;
  }
}

interface MergeSpec {
  target: Target;
  on: string[];
  whenMatched: 'replace' | 'merge' | 'keepExisting' | 'fail' | Document[];
  whenNotMatched: 'insert' | 'discard' | 'fail';
  variables?: Document;
}

const WHEN_MATCHED = new Set(['replace', 'merge', 'keepExisting', 'fail']);
const WHEN_NOT_MATCHED = new Set(['insert', 'discard', 'fail']);

function parseMerge(spec: unknown, db: string): MergeSpec {
  const raw: Document = typeof spec === 'string' ? { into: spec } : isPlainObject(spec) ? spec : {};
  if (raw.into === undefined) throw mongoError('FailedToParse', "$merge requires an 'into' field");
  const on = raw.on === undefined ? ['_id'] : typeof raw.on === 'string' ? [raw.on] : raw.on;
  if (!Array.isArray(on) || on.length === 0 || !on.every((f) => typeof f === 'string')) {
    throw mongoError('FailedToParse', "$merge 'on' must be a field name or an array of field names");
  }
  const whenMatched = raw.whenMatched ?? 'merge';
  if (!Array.isArray(whenMatched) && !WHEN_MATCHED.has(whenMatched as string)) {
    throw mongoError('BadValue', `Enumeration value '${String(whenMatched)}' for field 'whenMatched' is not a valid value`);
  }
  const whenNotMatched = raw.whenNotMatched ?? 'insert';
  if (!WHEN_NOT_MATCHED.has(whenNotMatched as string)) {
    throw mongoError('BadValue', `Enumeration value '${String(whenNotMatched)}' for field 'whenNotMatched' is not a valid value`);
  }
  return {
    target: parseTarget(raw.into, db, '$merge'),
    on: on as string[],
    whenMatched: whenMatched as MergeSpec['whenMatched'],
    whenNotMatched: whenNotMatched as MergeSpec['whenNotMatched'],
    variables: isPlainObject(raw.let) ? raw.let : undefined,
  };
}

/** $merge on fields other than `_id` needs a unique index on exactly those fields (51183). */
function assertUniqueOn(storage: Storage, target: Target, on: string[]): void {
  if (on.length === 1 && on[0] === '_id') return;
  const indexes = storage.collection(target.db, target.coll)?.indexes ?? [];
  const fits = indexes.some((ix) => {
    const keys = Object.keys(ix.key);
    return (ix.unique === true || ix.name === '_id_') && keys.length === on.length && on.every((f) => keys.includes(f));
  });
  if (!fits) {
    throw mongoError('Location51183', "Cannot find index to verify that join fields will be unique");
  }
}

/** The value of an `on` field: missing, null or an array cannot identify a document (51132). */
function mergeKeyValue(doc: Document, field: string): unknown {
  const values = getPathValues(doc, field);
  const value = values.length === 1 ? values[0] : values;
  if (field !== '_id' && (value === undefined || value === null || Array.isArray(value))) {
    throw mongoError('Location51132', `$merge write error: 'on' field '${field}' cannot be missing, null, undefined or an array`);
  }
  return value ?? null;
}

function writeMerge(storage: Storage, db: string, spec: unknown, results: Document[], bypassValidation: unknown): void {
  const m = parseMerge(spec, db);
  const { db: tdb, coll } = m.target;
  assertNotView(storage, tdb, coll);
  assertUniqueOn(storage, m.target, m.on);
  storage.ensureCollection(tdb, coll);
  const check = documentCheck(storage, tdb, coll, bypassValidation);
  const insert = (doc: Document): void => {
    check(doc);
    storage.insert(tdb, coll, doc);
  };
  const replace = (doc: Document, previous: Document): void => {
    check(doc, previous);
    storage.replace(tdb, coll, doc);
  };
  for (const result of results) {
    const doc = m.on.includes('_id') ? withIdFirst(result) : result;
    const key: Document = {};
    for (const field of m.on) key[field] = mergeKeyValue(doc, field);
    const existing = readFirst(storage, tdb, coll, { filter: key });
    if (!existing) {
      if (m.whenNotMatched === 'insert') insert(withIdFirst(doc));
      else if (m.whenNotMatched === 'fail') {
        throw mongoError('MergeStageNoMatchingDocument', '$merge could not find a matching document in the target collection for at least one document in the source collection');
      }
      continue;
    }
    // A result whose own _id differs from the matched document's would change it (mongod: 66).
    if (m.whenMatched !== 'keepExisting' && m.whenMatched !== 'fail' && !Array.isArray(m.whenMatched) && doc._id !== undefined && !valuesEqual(doc._id, existing._id)) {
      throw mongoError('ImmutableField', "$merge failed to update the matching document, did you attempt to modify the _id or the shard key?");
    }
    const { _id: _ignored, ...fields } = doc;
    switch (m.whenMatched) {
      case 'keepExisting':
        break;
      case 'fail':
        throw mongoError('DuplicateKey', `E11000 duplicate key error collection: ${tdb}.${coll}`, {
          keyPattern: Object.fromEntries(m.on.map((f) => [f, 1])),
          keyValue: key,
        });
      case 'replace':
        replace({ _id: existing._id, ...fields }, existing);
        break;
      case 'merge':
        replace({ ...existing, ...fields, _id: existing._id }, existing);
        break;
      default: {
        // `let` values are expressions over the result document; `$$new` is that document.
        const variables: Document = { new: doc };
        for (const [name, expr] of Object.entries(m.variables ?? {})) variables[name] = evaluateExpression(doc, expr);
        const updated = applyUpdate(existing, m.whenMatched, { isInsert: false, filter: key, variables }).doc;
        replace(withIdFirst(updated, existing._id), existing);
      }
    }
  }
}
