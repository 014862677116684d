import { createHash } from 'node:crypto';
import { Binary } from 'bson';
import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import type { EngineState } from './types.js';

/**
 * The logical sessions the engine has seen (mongod's LogicalSessionCache as
 * `$listLocalSessions` shows it): each `lsid` a command carries, with its
 * last use. Without authentication every session belongs to the empty user,
 * whose digest (`uid`) is the SHA-256 of nothing. Sessions idle past
 * `logicalSessionTimeoutMinutes` (30) are forgotten, and at most mongod's
 * default `maxSessions` are kept, the least recently used going first.
 */

const TIMEOUT_MS = 30 * 60_000;
const MAX_SESSIONS = 1_000_000;

interface SessionRecord {
  id: Binary;
  lastUse: Date;
}

const perEngine = new WeakMap<EngineState, Map<string, SessionRecord>>();

function sessionsOf(engine: EngineState): Map<string, SessionRecord> {
  let sessions = perEngine.get(engine);
  if (!sessions) perEngine.set(engine, (sessions = new Map()));
  return sessions;
}

/** The digest of a user (mongod's getLogicalSessionUserDigestFor): SHA-256 of `user@db`, of nothing for no user. */
function userDigest(user: string, db: string): Binary {
  const hash = createHash('sha256');
  if (user !== '' || db !== '') hash.update(`${user}@${db}`);
  return new Binary(hash.digest(), 0);
}

const NO_AUTH_DIGEST = userDigest('', '');

/** Notes the session of a command's `lsid` (a UUID `id`) as used now. */
export function noteSession(engine: EngineState, lsid: unknown): void {
  if (!isPlainObject(lsid) || !(lsid.id instanceof Binary) || lsid.id.sub_type !== Binary.SUBTYPE_UUID) return;
  const sessions = sessionsOf(engine);
  const key = lsid.id.toString('hex');
  // Re-inserted, so the map's order is least recently used first.
  sessions.delete(key);
  sessions.set(key, { id: lsid.id, lastUse: new Date() });
  if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
}

/**
 * `$listLocalSessions: {allUsers?, users?: [{user, db}]}` (mongod's
 * ListSessionsSpec); only on `{aggregate: 1}`. `{}` lists the current
 * user's sessions: without authentication, the empty user's, which all are.
 */
export function listLocalSessions(spec: unknown, engine: EngineState, target: string | undefined): Document[] {
  if (target !== undefined) {
    throw mongoError('InvalidNamespace', '$listLocalSessions must be run against the database with {aggregate: 1}, not a collection');
  }
  if (!isPlainObject(spec)) throw mongoError('TypeMismatch', `$listLocalSessions options must be specified in an object, but found: ${typeof spec}`);
  for (const field of Object.keys(spec)) {
    if (field !== 'allUsers' && field !== 'users') throw mongoError('IDLUnknownField', `BSON field '$listLocalSessions.${field}' is an unknown field.`);
  }
  if (spec.allUsers !== undefined && typeof spec.allUsers !== 'boolean') {
    throw mongoError('TypeMismatch', "BSON field '$listLocalSessions.allUsers' is the wrong type, expected type 'bool'");
  }
  const users = spec.users === undefined ? undefined : usersParam(spec.users);
  if (spec.allUsers === true && users && users.length > 0) {
    throw mongoError('UnsupportedFormat', '$listLocalSessions may not specify {allUsers:true} and {users:[...]} at the same time');
  }
  const digests = spec.allUsers === true ? undefined : users && users.length > 0 ? users.map(({ user, db }) => userDigest(user, db)) : [NO_AUTH_DIGEST];
  // Every session here is the empty user's: listed unless the digests asked for leave it out.
  if (digests && !digests.some((d) => Buffer.from(d.buffer).equals(Buffer.from(NO_AUTH_DIGEST.buffer)))) return [];
  const sessions = sessionsOf(engine);
  const now = Date.now();
  const out: Document[] = [];
  for (const [key, record] of sessions) {
    if (now - record.lastUse.getTime() > TIMEOUT_MS) {
      sessions.delete(key);
      continue;
    }
    out.push({ _id: { id: record.id, uid: NO_AUTH_DIGEST }, lastUse: record.lastUse });
  }
  return out;
}

function usersParam(value: unknown): { user: string; db: string }[] {
  if (!Array.isArray(value)) throw mongoError('TypeMismatch', "BSON field '$listLocalSessions.users' is the wrong type, expected type 'array'");
  return value.map((entry, i) => {
    if (!isPlainObject(entry)) throw mongoError('TypeMismatch', `BSON field '$listLocalSessions.users.${i}' is the wrong type, expected type 'object'`);
    for (const field of ['user', 'db']) {
      if (entry[field] === undefined) throw mongoError('Location40414', `BSON field '$listLocalSessions.users.${field}' is missing but a required field`);
      if (typeof entry[field] !== 'string') {
        throw mongoError('TypeMismatch', `BSON field '$listLocalSessions.users.${field}' is the wrong type '${typeof entry[field]}', expected type 'string'`);
      }
    }
    return { user: entry.user as string, db: entry.db as string };
  });
}
