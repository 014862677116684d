import { mongoError } from '../errors.js';
import { optionalString, wrongType } from '../params/index.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';

/** The commands of Stable API version 1 that the engine has (mongod's list: the Stable API changelog). */
const API_V1_COMMANDS: ReadonlySet<string> = new Set([
  'abortTransaction', 'aggregate', 'authenticate', 'collMod', 'commitTransaction', 'count', 'create', 'createIndexes',
  'delete', 'drop', 'dropDatabase', 'dropIndexes', 'endSessions', 'explain', 'find', 'findAndModify', 'getMore',
  'hello', 'insert', 'killCursors', 'listCollections', 'listDatabases', 'listIndexes', 'ping', 'refreshSessions',
  'saslContinue', 'saslStart', 'update',
]);

/** The aggregation stages outside Stable API version 1 (mongod's aggregate docs, "Stable API"). */
const STAGES_OUTSIDE_V1: ReadonlySet<string> = new Set([
  '$currentOp', '$indexStats', '$listLocalSessions', '$listSessions', '$planCacheStats', '$search',
]);

/** The $collStats options outside version 1 (only `count` is in it). */
const COLL_STATS_OUTSIDE_V1 = ['latencyStats', 'queryExecStats', 'storageStats'];

/** Where mongod's IDL names these fields in its type errors. */
const STRUCT = 'APIParametersFromClient';

/**
 * The Stable API parameters every command may carry (`apiVersion`, `apiStrict`,
 * `apiDeprecationErrors`), checked as mongod checks them before running the
 * command: a version other than "1" is APIVersionError 322, apiStrict or
 * apiDeprecationErrors without a version 4886600, and apiStrict: true refuses a
 * command outside version 1 with APIStrictError 323, and so an aggregate whose
 * pipeline (sub-pipelines included) has a stage outside version 1 ($collStats
 * with more than `count`). No command of the engine
 * is deprecated in version 1, so apiDeprecationErrors refuses nothing.
 */
export function assertApiParameters(body: Document, command: string): void {
  const version = optionalString(body, STRUCT, 'apiVersion');
  const strict = optionalBoolean(body, 'apiStrict');
  const deprecationErrors = optionalBoolean(body, 'apiDeprecationErrors');
  if (version === undefined) {
    if (strict !== undefined) throw mongoError('Location4886600', 'Provided apiStrict without passing apiVersion');
    if (deprecationErrors !== undefined) throw mongoError('Location4886600', 'Provided apiDeprecationErrors without passing apiVersion');
    return;
  }
  if (version !== '1') throw mongoError('APIVersionError', 'API version must be "1"');
  if (strict === true && !API_V1_COMMANDS.has(command)) {
    throw mongoError(
      'APIStrictError',
      `Provided apiStrict:true, but the command ${command} is not in API Version 1. Information on supported commands and migrations in API Version 1 can be found at https://dochub.mongodb.org/core/manual-versioned-api`,
    );
  }
  if (strict === true && command === 'aggregate') assertStagesInV1(body.pipeline);
}

/** Refuses the first stage outside version 1, looking into $lookup, $unionWith and $facet sub-pipelines (as mongod's lite-parsed pipeline does). */
function assertStagesInV1(pipeline: unknown): void {
  if (!Array.isArray(pipeline)) return; // a malformed pipeline gets the aggregate command's own error
  for (const stage of pipeline) {
    if (!isPlainObject(stage)) continue;
    for (const [name, spec] of Object.entries(stage)) {
      if (STAGES_OUTSIDE_V1.has(name)) throw mongoError('APIStrictError', `${name} is not allowed with 'apiStrict: true' in API Version 1`);
      if (!isPlainObject(spec)) continue;
      // $collStats is in version 1 with its count option only.
      if (name === '$collStats' && COLL_STATS_OUTSIDE_V1.some((option) => spec[option] !== undefined)) {
        throw mongoError('APIStrictError', "only the 'count' option to $collStats is supported in API Version 1");
      }
      if (name === '$lookup' || name === '$unionWith') assertStagesInV1(spec.pipeline);
      if (name === '$facet') for (const sub of Object.values(spec)) assertStagesInV1(sub);
    }
  }
}

/** These two are strict booleans (mongod: "expected type 'boolean'"), not the numbers-too bool of most options. */
function optionalBoolean(body: Document, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  throw wrongType(STRUCT, field, value, 'boolean');
}
