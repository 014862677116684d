import { mongoError } from '../errors.js';
import { optionalString, wrongType } from '../params/index.js';
import type { Document } from '../query/types.js';

/** The commands of Stable API version 1 that the engine has (mongod's list: the Stable API changelog). */
const API_V1_COMMANDS: ReadonlySet<string> = new Set([
  'abortTransaction', 'aggregate', 'authenticate', 'collMod', 'commitTransaction', 'count', 'create', 'createIndexes',
  'delete', 'drop', 'dropDatabase', 'dropIndexes', 'endSessions', 'explain', 'find', 'findAndModify', 'getMore',
  'hello', 'insert', 'killCursors', 'listCollections', 'listDatabases', 'listIndexes', 'ping', 'refreshSessions',
  'saslContinue', 'saslStart', 'update',
]);

/** Where mongod's IDL names these fields in its type errors. */
const STRUCT = 'APIParametersFromClient';

/**
 * The Stable API parameters every command may carry (`apiVersion`, `apiStrict`,
 * `apiDeprecationErrors`), checked as mongod checks them before running the
 * command: a version other than "1" is APIVersionError 322, apiStrict or
 * apiDeprecationErrors without a version 4886600, and apiStrict: true refuses a
 * command outside version 1 with APIStrictError 323. No command of the engine
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
}

/** These two are strict booleans (mongod: "expected type 'boolean'"), not the numbers-too bool of most options. */
function optionalBoolean(body: Document, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  throw wrongType(STRUCT, field, value, 'boolean');
}
