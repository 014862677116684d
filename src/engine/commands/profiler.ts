import { BSON, ObjectId } from 'bson';
import { compileFilter } from '../query/index.js';
import type { Document } from '../query/types.js';
import { namespaceOfCommand, opType } from './operation-tracker.js';
import type { CommandContext, EngineState, ProfileSettings } from './types.js';

/**
 * The database profiler (mongod's `profile` levels 1 and 2): the level and
 * `filter` are kept per database, `slowms` and `sampleRate` for the whole
 * engine, as mongod keeps them. `EngineState.profiling` is set only while some
 * database profiles, so the dispatcher's cost at level 0 is one field read.
 * Entries go to `<db>.system.profile`, a 1 MB capped collection created on
 * first use, in the shape of mongod's "Database Profiler Output" (without
 * locks, keysExamined, docsExamined, planSummary or execStats, which the
 * engine does not count per operation).
 */
export const PROFILE_COLLECTION = 'system.profile';
/** mongod's size for the system.profile it creates. */
const PROFILE_BYTES = 1024 * 1024;

const perEngine = new WeakMap<EngineState, ProfileSettings>();

export function profileSettingsOf(engine: EngineState): ProfileSettings {
  let settings = perEngine.get(engine);
  if (!settings) perEngine.set(engine, (settings = { slowms: 100, sampleRate: 1.0, databases: new Map() }));
  return settings;
}

export function profileLevelOf(engine: EngineState, db: string): number {
  return perEngine.get(engine)?.databases.get(db)?.level ?? 0;
}

/** Sets a database's level and filter (undefined filter: none); turns the dispatcher's hook on or off. */
export function setDatabaseProfile(engine: EngineState, db: string, level: number, filter: Document | undefined): void {
  const settings = profileSettingsOf(engine);
  if (level === 0 && filter === undefined) settings.databases.delete(db);
  else settings.databases.set(db, { level, ...(filter ? { filter, matches: compileFilter(filter) } : {}) });
  const profiling = [...settings.databases.values()].some((p) => p.level > 0);
  engine.profiling = profiling ? settings : undefined;
}

/** After a command: writes its entry when the database's level (and slowms, sampleRate or filter) asks for one. */
export function recordProfile(settings: ProfileSettings, name: string, body: Document, ctx: CommandContext, reply: Document, millis: number): void {
  const profile = settings.databases.get(ctx.db);
  if (!profile || profile.level === 0) return;
  const ns = namespaceOfCommand(name, body, ctx.db);
  // Its own reads are not profiled; nothing is written while an fsync lock keeps the files still.
  if (ns === `${ctx.db}.${PROFILE_COLLECTION}` || ctx.engine.fsyncLock?.locked) return;
  const ms = Math.floor(millis);
  // Level 1: a filter alone decides; without one, slow operations, sampled.
  if (profile.level === 1 && !profile.matches && !(ms >= settings.slowms && Math.random() < settings.sampleRate)) return;
  const storage = ctx.engine.storage;
  try {
    const entry = profileEntry(name, body, ctx, ns, reply, ms);
    if (profile.level === 1 && profile.matches && !profile.matches(entry)) return;
    if (!storage.collection(ctx.db, PROFILE_COLLECTION)) storage.createCollection(ctx.db, PROFILE_COLLECTION, { capped: true, size: PROFILE_BYTES });
    storage.insert(ctx.db, PROFILE_COLLECTION, { _id: new ObjectId(), ...entry });
  } catch {
    // A profile entry is never worth failing the command it describes (a full disk, an entry over 1 MB, a filter that throws).
  }
}

/** The statement arrays whose single statement mongod shows as `command` (it profiles each statement). */
const STATEMENTS: Record<string, string> = { insert: 'documents', update: 'updates', delete: 'deletes' };

function profileEntry(name: string, body: Document, ctx: CommandContext, ns: string, reply: Document, millis: number): Document {
  const entry: Document = { op: opType(name), ns, command: shownCommand(name, body) };
  Object.assign(entry, cursorFacts(name, reply), writeFacts(name, reply), { numYield: 0 });
  if (reply.ok === 0) Object.assign(entry, { ok: 0, errMsg: reply.errmsg, errName: reply.codeName, errCode: reply.code });
  entry.responseLength = responseLength(reply);
  entry.protocol = 'op_msg';
  entry.millis = millis;
  entry.ts = new Date();
  entry.client = hostOf(ctx.connection.remoteAddress);
  const appName = (ctx.connection.client?.application as Document | undefined)?.name;
  if (typeof appName === 'string') entry.appName = appName;
  entry.allUsers = [];
  entry.user = '';
  return entry;
}

/** insert shows the command without its documents; an update or delete of one statement shows that statement. */
function shownCommand(name: string, body: Document): Document {
  const field = STATEMENTS[name];
  if (field === undefined) return body;
  const statements = body[field];
  if (name !== 'insert' && Array.isArray(statements) && statements.length === 1) return statements[0] as Document;
  const { [field]: _omitted, ...rest } = body;
  return rest;
}

function cursorFacts(name: string, reply: Document): Document {
  const cursor = reply.cursor as Document | undefined;
  if (!cursor || typeof cursor !== 'object') return {};
  const batch = (name === 'getMore' ? cursor.nextBatch : cursor.firstBatch) as unknown[] | undefined;
  const open = cursor.id !== undefined && String(cursor.id) !== '0';
  return { ...(open ? { cursorid: cursor.id } : { cursorExhausted: true }), ...(Array.isArray(batch) ? { nreturned: batch.length } : {}) };
}

function writeFacts(name: string, reply: Document): Document {
  if (reply.ok === 0) return {};
  const n = typeof reply.n === 'number' ? reply.n : 0;
  if (name === 'insert') return { ninserted: n };
  if (name === 'delete') return { ndeleted: n };
  if (name === 'update') {
    const upserted = Array.isArray(reply.upserted) ? reply.upserted.length : 0;
    return { nMatched: n - upserted, nModified: reply.nModified ?? 0, nUpserted: upserted };
  }
  return {};
}

function responseLength(reply: Document): number {
  try {
    return BSON.calculateObjectSize(reply);
  } catch {
    return 0;
  }
}

/** mongod's profile `client` is the peer's address without its port. */
function hostOf(remoteAddress: string): string {
  const colon = remoteAddress.lastIndexOf(':');
  return colon > 0 ? remoteAddress.slice(0, colon) : remoteAddress;
}
