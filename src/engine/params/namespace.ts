import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';

/**
 * The collection a command targets: the value of its first key. mongod
 * rejects a non-string with BadValue (2), a malformed name with
 * InvalidNamespace (73).
 */
export function collectionParam(body: Document, command: string): string {
  const value = body[command];
  if (typeof value !== 'string') {
    throw mongoError('BadValue', `collection name has invalid type ${value === null ? 'null' : typeof value}`);
  }
  assertValidCollectionName(value);
  return value;
}

export function assertValidCollectionName(name: string): void {
  if (name.length === 0) throw mongoError('InvalidNamespace', 'Invalid namespace specified: empty collection name');
  if (name.includes('$') || name.includes('\0')) {
    throw mongoError('InvalidNamespace', `Invalid collection name: ${name}`);
  }
}

export function namespaceOf(db: string, coll: string): string {
  return `${db}.${coll}`;
}

/**
 * The collection part of a cursor's namespace (getMore, killCursors): it may
 * be a pseudo-collection such as `$cmd.listIndexes.users`, so only its type
 * is checked.
 */
export function cursorCollectionParam(body: Document, command: string, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.length === 0) {
    throw mongoError('InvalidNamespace', `${command}: '${field}' must be a non-empty string`);
  }
  return value;
}
