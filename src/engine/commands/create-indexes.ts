import { mongoError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { collectionParam, requiredArray } from '../params/index.js';
import type { Document } from '../query/types.js';
import { normalizeGeoIndexSpec } from '../query/geo/index.js';
import { checkHashedAndWildcardSpec } from '../query/index.js';
import { isNumeric, isPlainObject, toDouble } from '../query/values.js';
import { assertNotBuckets, assertNotView, defaultCollation } from '../reads/index.js';
import { assertTimeSeriesIndex, flushWrites, isTimeSeries } from '../writes/index.js';
import type { CommandHandler } from './types.js';

/** The index options mongod accepts; anything else is 197. */
const INDEX_FIELDS = new Set([
  'key', 'name', 'v', 'unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds', 'collation',
  'background', 'hidden', 'weights', 'default_language', 'language_override', 'textIndexVersion',
  '2dsphereIndexVersion', 'bits', 'min', 'max', 'bucketSize', 'storageEngine', 'wildcardProjection',
  'prepareUnique', 'ns', 'dropDups',
]);
const INDEX_TYPES = new Set(['text', '2d', '2dsphere', 'hashed', 'geoHaystack']);

function sameIdKey(key: Document): boolean {
  const fields = Object.keys(key);
  return fields.length === 1 && fields[0] === '_id' && isNumeric(key._id) && toDouble(key._id) === 1;
}

function parseSpec(raw: unknown): IndexSpec {
  if (!isPlainObject(raw)) throw mongoError('TypeMismatch', "BSON field 'createIndexes.indexes' must contain only objects");
  if (raw.key === undefined) {
    throw mongoError('FailedToParse', "The 'key' field is a required property of an index specification");
  }
  if (raw.name === undefined) {
    throw mongoError('FailedToParse', "The 'name' field is a required property of an index specification");
  }
  if (!isPlainObject(raw.key) || Object.keys(raw.key).length === 0) {
    throw mongoError('CannotCreateIndex', 'Index keys cannot be empty.');
  }
  for (const [field, value] of Object.entries(raw.key)) {
    const valid = isNumeric(value) ? toDouble(value) !== 0 : typeof value === 'string' && INDEX_TYPES.has(value);
    if (!valid) {
      throw mongoError(
        'CannotCreateIndex',
        `Values in the index key pattern can only be positive or negative numbers, or strings: ${field}`,
      );
    }
  }
  if (typeof raw.name !== 'string') throw mongoError('TypeMismatch', "The field 'name' must be a string");
  if (raw.name.length === 0) throw mongoError('CannotCreateIndex', 'index name cannot be empty');
  for (const flag of ['unique', 'sparse', 'hidden', 'background']) {
    const value = raw[flag];
    if (value !== undefined && typeof value !== 'boolean' && !isNumeric(value)) {
      throw mongoError('TypeMismatch', `The field '${flag}' has a value which is not convertible to bool`);
    }
  }
  if (sameIdKey(raw.key as Document)) {
    for (const field of ['unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds', 'hidden']) {
      if (raw[field] !== undefined) {
        throw mongoError('InvalidIndexSpecificationOption', `The field '${field}' is not valid for an _id index specification.`);
      }
    }
  }
  for (const field of Object.keys(raw)) {
    if (!INDEX_FIELDS.has(field)) {
      throw mongoError('InvalidIndexSpecificationOption', `The field '${field}' is not valid for an index specification`);
    }
  }
  const { key, name, v, ns: _ns, ...options } = raw;
  const spec = { v: v === undefined ? 2 : toDouble(v), key: key as IndexSpec['key'], name, ...options } as IndexSpec;
  checkHashedAndWildcardSpec(spec);
  normalizeGeoIndexSpec(spec);
  return spec;
}

/**
 * createIndexes: all specs are validated first; if one fails to build, the
 * ones built by this command are dropped again, so it is all or nothing.
 */
export const createIndexesCommand: CommandHandler = {
  name: 'createIndexes',
  help: 'create indexes: {createIndexes: <collection>, indexes: [{key, name, unique, ...}]}',
  async handle(body, ctx) {
    const coll = collectionParam(body, 'createIndexes');
    const rawSpecs = requiredArray(body, 'createIndexes', 'indexes');
    if (rawSpecs.length === 0) throw mongoError('BadValue', 'Must specify at least one index to create');
    const specs = rawSpecs.map(parseSpec);
    const storage = ctx.engine.storage;
    assertNotView(storage, ctx.db, coll);
    assertNotBuckets(storage, ctx.db, coll);

    const existed = storage.collection(ctx.db, coll);
    if (isTimeSeries(existed)) for (const spec of specs) assertTimeSeriesIndex(existed!, spec);
    const before = existed ? existed.indexes.length : 1;
    // An index without a collation inherits the collection's default, as in mongod.
    const collation = defaultCollation(existed);
    if (collation) for (const spec of specs) spec.collation ??= collation as IndexSpec['collation'];
    storage.ensureCollection(ctx.db, coll);
    const created: string[] = [];
    try {
      for (const spec of specs) if (storage.createIndex(ctx.db, coll, spec)) created.push(spec.name);
    } catch (err) {
      for (const name of created) storage.dropIndex(ctx.db, coll, name);
      if (!existed) storage.dropCollection(ctx.db, coll);
      await flushWrites(ctx.engine.storage, body);
      throw err;
    }
    // The reply describes what this command did: a drop on another connection may run while it waits for the journal.
    const reply: Document = {
      numIndexesBefore: before,
      numIndexesAfter: storage.collection(ctx.db, coll)!.indexes.length,
      createdCollectionAutomatically: !existed,
    };
    if (created.length === 0) reply.note = 'all indexes already exist';
    await flushWrites(ctx.engine.storage, body);
    return reply;
  },
};
