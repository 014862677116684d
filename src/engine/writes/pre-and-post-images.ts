import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';

/** Databases where mongod refuses the option (its validateChangeStreamPreAndPostImagesOptionIsPermitted). */
const REFUSING_DBS = new Set(['admin', 'local', 'config']);

/**
 * `changeStreamPreAndPostImages: {enabled}` as `create` and `collMod` both
 * check it (mongod's IDL struct: `enabled` required and boolean, nothing
 * else), refused on admin, local and config. A standalone mongod accepts it
 * (it records no images without an oplog; the engine has no change streams
 * either). Returns the option as mongod stores and lists it: only when
 * enabled, else undefined.
 */
export function preAndPostImagesOption(command: 'create' | 'collMod', db: string, raw: unknown): Document | undefined {
  const field = `${command}.changeStreamPreAndPostImages`;
  if (!isPlainObject(raw)) throw mongoError('TypeMismatch', `BSON field '${field}' is the wrong type, expected type 'object'`);
  for (const key of Object.keys(raw)) {
    if (key !== 'enabled') throw mongoError('IDLUnknownField', `BSON field '${field}.${key}' is an unknown field.`);
  }
  if (raw.enabled === undefined) throw mongoError('Location40414', `BSON field '${field}.enabled' is missing but a required field`);
  if (typeof raw.enabled !== 'boolean') throw mongoError('TypeMismatch', `BSON field '${field}.enabled' is the wrong type, expected type 'bool'`);
  if (!raw.enabled) return undefined;
  if (REFUSING_DBS.has(db)) throw mongoError('InvalidOptions', `changeStreamPreAndPostImages collection option is not supported on the ${db} database`);
  return { enabled: true };
}

/** `create`'s options with the option checked, and kept only when enabled. */
export function withPreAndPostImages(options: Document, db: string): Document {
  if (options.changeStreamPreAndPostImages === undefined) return options;
  const { changeStreamPreAndPostImages, ...rest } = options;
  const option = preAndPostImagesOption('create', db, changeStreamPreAndPostImages);
  return option ? { ...rest, changeStreamPreAndPostImages: option } : rest;
}
