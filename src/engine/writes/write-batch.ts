import { ObjectId } from 'bson';
import { DocumentTooLargeError, isMongoCommandError, mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { bsonType, isPlainObject } from '../query/values.js';
import type { Storage } from '../storage/types.js';

/**
 * What every write command shares: `_id` handling, field-name validation,
 * the writeErrors entry shape, and the flush before acknowledging.
 */

export interface WriteErrorEntry {
  index: number;
  code: number;
  errmsg: string;
  [extra: string]: unknown;
}

/** mongod stores `_id` as the first field; a document without one gets an ObjectId. */
export function withIdFirst(doc: Document, id: unknown = doc._id === undefined ? new ObjectId() : doc._id): Document {
  const keys = Object.keys(doc);
  if (keys[0] === '_id' && doc._id === id) return doc;
  const out: Document = { _id: id };
  for (const key of keys) if (key !== '_id') out[key] = doc[key];
  return out;
}

/**
 * The checks mongod's fixDocumentForInsert makes. Since 5.0 a top-level
 * `$`-prefixed field is stored as given; only `_id` stays strict.
 */
export function prepareInsert(document: Document): Document {
  if ('_id' in document) {
    assertValidId(document._id, 'BadValue');
    const dollar = isPlainObject(document._id) ? Object.keys(document._id).find((k) => k.startsWith('$')) : undefined;
    if (dollar !== undefined) {
      throw mongoError('DollarPrefixedFieldName', `_id fields may not contain '$'-prefixed fields: ${dollar} is not valid for storage.`);
    }
  }
  return withIdFirst(document);
}

/**
 * Runs a storage write, wording a document over 16 MiB as mongod words it for this write:
 * an insert (BadValue 2, a write error), an update's result (17419), an upsert (17420).
 * Past mongod's internal limit (16 MiB + 16 KiB) its own BSON building fails first: 10334.
 */
export function sizeChecked<T>(write: () => T, kind: 'insert' | 'update' | 'upsert'): T {
  try {
    return write();
  } catch (err) {
    if (!(err instanceof DocumentTooLargeError) || err.size > DocumentTooLargeError.INTERNAL_LIMIT) throw err;
    const max = err.limit;
    if (kind === 'insert') throw mongoError('BadValue', `object to insert too large. size in bytes: ${err.size}, max size: ${max}`);
    if (kind === 'update') throw mongoError('Location17419', `Resulting document after update is larger than ${max}`);
    throw mongoError('Location17420', `Document to upsert is larger than ${max}`);
  }
}

/** `_id` may not be an array, a regex or undefined (insert: 2; update: 53). */
export function assertValidId(id: unknown, codeName: 'BadValue' | 'InvalidIdField'): void {
  const type = Array.isArray(id) ? 'array' : id instanceof RegExp || bsonType(id) === 'BSONRegExp' ? 'regex' : id === undefined ? 'undefined' : undefined;
  if (type === undefined) return;
  if (codeName === 'BadValue') throw mongoError('BadValue', `can't use ${type === 'array' ? 'an' : 'a'} ${type} for _id`);
  throw mongoError('InvalidIdField', `The '_id' value cannot be of type ${type}`);
}

/** A command-level error becomes a writeErrors entry; anything else is a bug and propagates. */
export function toWriteError(index: number, err: unknown): WriteErrorEntry {
  if (!isMongoCommandError(err)) throw err;
  return { index, code: err.code, errmsg: err.message, ...err.extra };
}

/**
 * Runs each statement of a write command (mongod's batch semantics): a
 * failure becomes a write error at its index, and an ordered batch stops there.
 */
export function runStatements<T>(
  statements: readonly T[],
  ordered: boolean,
  apply: (statement: T, index: number) => void,
): WriteErrorEntry[] {
  const writeErrors: WriteErrorEntry[] = [];
  for (let index = 0; index < statements.length; index++) {
    try {
      apply(statements[index]!, index);
    } catch (err) {
      writeErrors.push(toWriteError(index, err));
      if (ordered) break;
    }
  }
  return writeErrors;
}

/**
 * What an acknowledgement waits for, as mongod's write concern says it: the
 * change written to the journal (it survives kill -9), and with `j: true`
 * (or the older `fsync: true`) synced to disk (it survives a power cut);
 * otherwise the journal syncs within its commit interval (100 ms).
 */
export async function flushWrites(storage: Storage, body: Document): Promise<void> {
  const concern = body.writeConcern as Document | undefined;
  await storage.flush({ durable: isTrue(concern?.j) || isTrue(concern?.fsync) });
}

/** mongod reads these flags as booleans or numbers (`j: 1`). */
function isTrue(flag: unknown): boolean {
  return flag === true || (typeof flag === 'number' && flag !== 0);
}

/** `ordered` defaults to true. */
export function isOrdered(body: Document): boolean {
  return body.ordered !== false;
}

/** Adds `writeErrors` to a reply only when there are some (mongod omits the empty array). */
export function withWriteErrors(reply: Document, errors: WriteErrorEntry[]): Document {
  if (errors.length > 0) reply.writeErrors = errors;
  return reply;
}
