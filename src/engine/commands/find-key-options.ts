import { Long } from 'bson';
import { getIndexKeyValues, hashedKey } from '../query/index.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import type { Storage } from '../storage/types.js';
import { explainRead, type ReadSpec } from './explain-plan.js';

/**
 * find's `returnKey` and `showRecordId`, as mongod answers them: `returnKey`
 * replaces each document by its key in the index the plan scans (`{}` when
 * the plan scans none: a collection scan), `showRecordId` adds the
 * document's record id as `$recordId` (a long, stable while it lives).
 */

/** The key pattern of the index the read's plan scans, or undefined for a collection scan. */
export function scannedKeyPattern(storage: Storage, db: string, coll: string, spec: ReadSpec): Document | undefined {
  const { winningPlan } = explainRead(storage, db, coll, spec, false);
  return findScan(winningPlan);
}

function findScan(stage: Document): Document | undefined {
  if (stage.stage === 'IDHACK') return { _id: 1 };
  if (stage.stage === 'IXSCAN' && isPlainObject(stage.keyPattern)) return stage.keyPattern as Document;
  if (isPlainObject(stage.inputStage)) return findScan(stage.inputStage as Document);
  for (const input of Array.isArray(stage.inputStages) ? stage.inputStages : []) {
    const found = isPlainObject(input) ? findScan(input as Document) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * The document's index key: each key field (dotted names kept whole) with its
 * first key value, null when missing; a hashed field's hash; a wildcard
 * scan's `$_path` names the path it read (the field after it).
 */
export function indexKeyOf(doc: Document, keyPattern: Document | undefined): Document {
  const key: Document = {};
  const fields = Object.keys(keyPattern ?? {});
  fields.forEach((field, i) => {
    if (field === '$_path') key[field] = fields[i + 1] ?? null;
    else if (keyPattern![field] === 'hashed') key[field] = hashedKey(getIndexKeyValues(doc, field)[0] ?? null);
    else key[field] = getIndexKeyValues(doc, field)[0] ?? null;
  });
  return key;
}

/** Adds `$recordId` (the stored document's record number) to what the reply sends for `doc`. */
export function withRecordId(storage: Storage, db: string, coll: string, stored: Document, sent: Document): Document {
  const record = storage.recordId(db, coll, stored._id, stored);
  return record === undefined ? sent : { ...sent, $recordId: Long.fromNumber(record) };
}
