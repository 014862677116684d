import { mongoError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { collectionParam } from '../params/index.js';
import type { Document } from '../query/types.js';
import { isNumeric, isPlainObject, toDouble } from '../query/values.js';
import { isView, sameKeyPattern, viewOptions } from '../reads/index.js';
import type { CollectionInfo } from '../storage/types.js';
import { assertValidValidator, flushWrites, isTimeSeries, preAndPostImagesOption } from '../writes/index.js';
import type { CommandHandler } from './types.js';

/** Fields every command may carry besides its own. */
const GENERIC_FIELDS = new Set(['collMod', 'comment', 'writeConcern', 'lsid', 'maxTimeMS', 'apiVersion', 'apiStrict', 'apiDeprecationErrors']);
const COLLECTION_FIELDS = new Set(['index', 'validator', 'validationLevel', 'validationAction', 'viewOn', 'pipeline', 'changeStreamPreAndPostImages', 'dryRun']);
/** The modifications a collMod may ask for: mongod counts them (prepareUnique and dryRun stand alone). */
const MODIFICATIONS = ['validator', 'validationLevel', 'validationAction', 'viewOn', 'pipeline', 'changeStreamPreAndPostImages'];
/** What collMod refuses on a time-series collection (mongod's getNotSupportedOnTimeseriesError). */
const TIME_SERIES_REFUSED = ['validator', 'validationLevel', 'validationAction', 'changeStreamPreAndPostImages'];
const INDEX_FIELDS = ['name', 'keyPattern', 'hidden', 'expireAfterSeconds', 'unique', 'prepareUnique'];
const VALIDATION_LEVELS = new Set(['off', 'strict', 'moderate']);
const VALIDATION_ACTIONS = new Set(['error', 'warn']);
/** mongod's largest expireAfterSeconds (it is kept as a 32-bit int). */
const MAX_EXPIRE_AFTER_SECONDS = 2_147_483_647;

/**
 * collMod: changes an index's `hidden` or `expireAfterSeconds` (TTL), or
 * makes it unique in mongod 6.0's two steps (`prepareUnique: true` refuses new
 * duplicates, then `unique: true` converts it when none are left; `dryRun`
 * only checks), a collection's validator (`validator`, `validationLevel`,
 * `validationAction`) or `changeStreamPreAndPostImages`, or a view's
 * definition (`viewOn`, `pipeline`).
 * Everything is checked before anything changes.
 */
export const collModCommand: CommandHandler = {
  name: 'collMod',
  help: 'change collection options: {collMod: <coll>, index: {name | keyPattern, hidden, expireAfterSeconds, prepareUnique, unique}, dryRun, validator, validationLevel, validationAction, viewOn, pipeline}',
  async handle(body, ctx) {
    const coll = collectionParam(body, 'collMod');
    for (const field of Object.keys(body)) {
      if (!GENERIC_FIELDS.has(field) && !COLLECTION_FIELDS.has(field) && !field.startsWith('$')) {
        throw mongoError('IDLUnknownField', `BSON field 'collMod.${field}' is an unknown field.`);
      }
    }
    const storage = ctx.engine.storage;
    const info = storage.collection(ctx.db, coll);
    if (!info) throw mongoError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${coll}`);

    const dryRun = dryRunParam(body);
    if (isTimeSeries(info)) {
      const refused = TIME_SERIES_REFUSED.find((field) => body[field] !== undefined);
      if (refused) throw mongoError('InvalidOptions', `option not supported on a time-series collection: ${refused}`);
    }

    // 1. check everything
    const reply: Document = {};
    const index = body.index === undefined ? undefined : indexChange(info, body.index, reply);
    const validation = isView(info) ? undefined : validationChange(info, body);
    const options = isView(info) ? viewChange(ctx.engine.storage, info, body) : (preAndPostImagesChange(ctx.db, validation ?? info.options, body) ?? validation);
    const modifications = (index?.count ?? 0) + MODIFICATIONS.filter((field) => body[field] !== undefined).length;
    if (index?.prepares && modifications > 1) {
      throw mongoError('InvalidOptions', 'prepareUnique cannot be combined with any other modification.');
    }
    if (dryRun && modifications > 1) {
      throw mongoError('InvalidOptions', 'unique: true cannot be combined with any other modification in dry run mode.');
    }
    if (index?.convertsToUnique || dryRun) assertNoDuplicates(storage.duplicateKeyIds(ctx.db, coll, index!.name));
    if (dryRun) return {};

    // 2. apply
    if (index) storage.setIndexOptions(ctx.db, coll, index.name, index.changes);
    if (options) storage.setCollectionOptions(ctx.db, coll, options);
    await flushWrites(storage, body);
    return reply;
  },
};

/**
 * `dryRun: true` asks only whether `index: {unique: true}` would succeed (mongod
 * refuses it with anything else, and without that index change).
 */
function dryRunParam(body: Document): boolean {
  const { dryRun } = body;
  if (dryRun === undefined || dryRun === false) return false;
  if (typeof dryRun !== 'boolean') throw mongoError('TypeMismatch', "BSON field 'collMod.dryRun' is the wrong type, expected type 'bool'");
  if (!isPlainObject(body.index)) throw mongoError('InvalidOptions', 'dry run mode requires an valid index modification.');
  if (body.index.unique !== true) throw mongoError('InvalidOptions', 'dry run mode requires an index modification with unique: true.');
  return true;
}

/** CannotConvertIndexToUnique (359) with mongod's `violations`: the `_id`s of each group sharing a key. */
function assertNoDuplicates(groups: unknown[][]): void {
  if (groups.length === 0) return;
  throw mongoError('CannotConvertIndexToUnique', 'Cannot convert the index to unique. Please resolve conflicting documents before running collMod again.', {
    violations: groups.map((ids) => ({ ids })),
  });
}

interface IndexChange {
  name: string;
  changes: Partial<IndexSpec>;
  /** How many modifications the request names (mongod's count, no-ops included). */
  count: number;
  /** `unique: true` on an index that is not unique yet: its duplicates are looked for first. */
  convertsToUnique: boolean;
  /** `prepareUnique` changes (mongod allows no other modification with it). */
  prepares: boolean;
}

/** The index named by `name` or `keyPattern`, and what changes; fills the `*_old`/`*_new` reply fields. */
function indexChange(info: CollectionInfo, raw: unknown, reply: Document): IndexChange {
  if (isView(info)) throw mongoError('InvalidOptions', 'collMod: cannot modify an index of a view');
  if (!isPlainObject(raw)) throw mongoError('TypeMismatch', "BSON field 'collMod.index' is the wrong type, expected type 'object'");
  for (const field of Object.keys(raw)) {
    if (!INDEX_FIELDS.includes(field)) {
      throw mongoError('IDLUnknownField', `BSON field 'collMod.index.${field}' is an unknown field.`);
    }
  }
  for (const field of ['hidden', 'unique', 'prepareUnique']) {
    if (raw[field] !== undefined && typeof raw[field] !== 'boolean') {
      throw mongoError('TypeMismatch', `BSON field 'collMod.index.${field}' is the wrong type, expected type 'bool'`);
    }
  }
  const { name, keyPattern, hidden, expireAfterSeconds, unique, prepareUnique } = raw;
  if ((name === undefined) === (keyPattern === undefined)) {
    throw mongoError('InvalidOptions', 'collMod: must specify exactly one of the index name or key pattern');
  }
  const spec =
    typeof name === 'string'
      ? info.indexes.find((ix) => ix.name === name)
      : isPlainObject(keyPattern)
        ? info.indexes.find((ix) => sameKeyPattern(ix.key, keyPattern))
        : undefined;
  if (!spec) {
    const named = typeof name === 'string' ? name : JSON.stringify(keyPattern);
    throw mongoError('IndexNotFound', `cannot find index ${named} for ns ${info.db}.${info.name}`);
  }
  if (hidden === undefined && expireAfterSeconds === undefined && unique === undefined && prepareUnique === undefined) {
    throw mongoError('InvalidOptions', 'no expireAfterSeconds, hidden, unique, or prepareUnique field');
  }
  const changes: Partial<IndexSpec> = {};
  const count = [hidden, expireAfterSeconds, unique, prepareUnique].filter((v) => v !== undefined).length;
  const isUnique = spec.unique === true || spec.name === '_id_';
  let convertsToUnique = false;
  let prepares = false;
  if (unique !== undefined) {
    if (unique === false) throw mongoError('BadValue', 'Cannot make index non-unique');
    // Already unique: nothing to do (and nothing in the reply), as mongod.
    if (!isUnique) {
      if (spec.prepareUnique !== true) {
        throw mongoError('InvalidOptions', "Cannot make index unique with 'prepareUnique=false'. Run collMod to set it first.");
      }
      convertsToUnique = true;
      changes.unique = true;
      changes.prepareUnique = undefined;
      reply.unique_new = true;
    }
  }
  if (prepareUnique !== undefined && !isUnique && (spec.prepareUnique === true) !== prepareUnique) {
    reply.prepareUnique_old = spec.prepareUnique === true;
    reply.prepareUnique_new = prepareUnique;
    // Not prepared is the default: the option is removed rather than stored as false.
    changes.prepareUnique = prepareUnique ? true : undefined;
    prepares = true;
  }
  if (hidden !== undefined) {
    if (spec.name === '_id_') throw mongoError('BadValue', "can't hide _id index");
    reply.hidden_old = spec.hidden === true;
    reply.hidden_new = hidden;
    // Not hidden is the default: the option is removed rather than stored as false.
    changes.hidden = hidden ? true : undefined;
  }
  if (expireAfterSeconds !== undefined) {
    if (!isNumeric(expireAfterSeconds)) {
      throw mongoError('TypeMismatch', "BSON field 'collMod.index.expireAfterSeconds' is the wrong type, expected a number");
    }
    const seconds = Math.trunc(toDouble(expireAfterSeconds));
    if (!(seconds >= 0 && seconds <= MAX_EXPIRE_AFTER_SECONDS)) {
      throw mongoError('InvalidOptions', `TTL index 'expireAfterSeconds' option must be within an acceptable range, got ${toDouble(expireAfterSeconds)}`);
    }
    if (spec.name === '_id_' || Object.keys(spec.key).length !== 1) {
      throw mongoError('InvalidOptions', 'TTL indexes are single-field indexes, compound indexes do not support TTL');
    }
    if (spec.expireAfterSeconds !== undefined) reply.expireAfterSeconds_old = spec.expireAfterSeconds;
    reply.expireAfterSeconds_new = seconds;
    changes.expireAfterSeconds = seconds;
  }
  return { name: spec.name, changes, count, convertsToUnique, prepares };
}

/** The collection's options with the new validation settings, or undefined when none is given. */
function validationChange(info: CollectionInfo, body: Document): Document | undefined {
  if (body.viewOn !== undefined || body.pipeline !== undefined) {
    throw mongoError('InvalidOptions', `option only supported on a view: ${body.viewOn !== undefined ? 'viewOn' : 'pipeline'}`);
  }
  const { validator, validationLevel, validationAction } = body;
  if (validator === undefined && validationLevel === undefined && validationAction === undefined) return undefined;
  if (validator !== undefined && !isPlainObject(validator)) {
    throw mongoError('TypeMismatch', "BSON field 'collMod.validator' is the wrong type, expected type 'object'");
  }
  if (validationLevel !== undefined && !VALIDATION_LEVELS.has(validationLevel as string)) {
    throw mongoError('BadValue', `Enumeration value '${String(validationLevel)}' for field 'collMod.validationLevel' is not a valid value.`);
  }
  if (validationAction !== undefined && !VALIDATION_ACTIONS.has(validationAction as string)) {
    throw mongoError('BadValue', `Enumeration value '${String(validationAction)}' for field 'collMod.validationAction' is not a valid value.`);
  }
  const options: Document = { ...info.options };
  if (validator !== undefined) options.validator = validator;
  // mongod reports the defaults once a validator exists.
  options.validationLevel = validationLevel ?? options.validationLevel ?? 'strict';
  options.validationAction = validationAction ?? options.validationAction ?? 'error';
  assertValidValidator(options);
  return options;
}

/**
 * The options with `changeStreamPreAndPostImages` changed (checked as `create` checks it; the
 * engine has no change streams to record images for). Undefined when it is not given.
 */
function preAndPostImagesChange(db: string, options: Document, body: Document): Document | undefined {
  if (body.changeStreamPreAndPostImages === undefined) return undefined;
  const option = preAndPostImagesOption('collMod', db, body.changeStreamPreAndPostImages);
  const next: Document = { ...options };
  if (option) next.changeStreamPreAndPostImages = option;
  else delete next.changeStreamPreAndPostImages;
  return next;
}

/** A view's new definition (`viewOn` and/or `pipeline`), checked like `create`. */
function viewChange(storage: Parameters<typeof viewOptions>[0], info: CollectionInfo, body: Document): Document | undefined {
  for (const field of ['validator', 'validationLevel', 'validationAction', 'changeStreamPreAndPostImages']) {
    if (body[field] !== undefined) throw mongoError('InvalidOptions', `option not supported on a view: ${field}`);
  }
  if (body.viewOn === undefined && body.pipeline === undefined) return undefined;
  const next = { ...info.options, ...(body.viewOn !== undefined ? { viewOn: body.viewOn } : {}), ...(body.pipeline !== undefined ? { pipeline: body.pipeline } : {}) };
  return viewOptions(storage, info.db, info.name, next);
}
