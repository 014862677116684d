import { createHash } from 'node:crypto';
import { type Db, type Document } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * `$listLocalSessions` on `{aggregate: 1}` as mongod 7.0 answers it without
 * authentication: the sessions whose `lsid` the server has seen, as
 * `{_id: {id, uid}, lastUse}`, `uid` being the digest of no user (SHA-256 of
 * nothing); and the stage errors of `{aggregate: 1}`.
 */

/** Runs one command in an explicit session, then lists the local sessions with `spec` (on `db`'s {aggregate: 1}). */
async function sessionsAfterUse(db: Db, spec: Document): Promise<{ sessionId: string; listed: Document[] }> {
  const session = db.client.startSession();
  try {
    await db.command({ ping: 1 }, { session });
    const listed = await db.aggregate([{ $listLocalSessions: spec }]).toArray();
    return { sessionId: session.id!.id.toString('hex'), listed };
  } finally {
    await session.endSession();
  }
}

const mine = ({ sessionId, listed }: { sessionId: string; listed: Document[] }) =>
  listed.filter((s) => (s._id.id as { toString(f: string): string }).toString('hex') === sessionId);

const NO_USER = createHash('sha256').digest('hex');

const cases: CompatCase[] = [
  {
    name: 'lists a session the server has seen with its id, the no-user uid and lastUse',
    run: async (_c, db) => {
      const found = mine(await sessionsAfterUse(db.client.db('admin'), {}));
      return found.map((s) => ({
        keys: Object.keys(s),
        idKeys: Object.keys(s._id),
        uid: s._id.uid.toString('hex'),
        uidSubtype: s._id.uid.sub_type,
        lastUse: s.lastUse instanceof Date,
      }));
    },
    expected: [{ keys: ['_id', 'lastUse'], idKeys: ['id', 'uid'], uid: NO_USER, uidSubtype: 0, lastUse: true }],
  },
  {
    name: 'allUsers: true lists it too, also on another database',
    run: async (_c, db) => mine(await sessionsAfterUse(db, { allUsers: true })).length,
    expected: 1,
  },
  {
    name: 'users naming another user lists none of the sessions without authentication',
    run: async (_c, db) => mine(await sessionsAfterUse(db, { users: [{ user: 'someone', db: 'admin' }] })).length,
    expected: 0,
  },
  {
    name: 'later stages run over the listed sessions',
    run: async (_c, db) => {
      await db.command({ ping: 1 });
      const [counted] = await db.aggregate([{ $listLocalSessions: { allUsers: true } }, { $count: 'n' }]).toArray();
      return counted!.n > 0;
    },
    expected: true,
  },
  {
    name: 'allUsers with users is UnsupportedFormat',
    run: (_c, db) => db.aggregate([{ $listLocalSessions: { allUsers: true, users: [{ user: 'a', db: 'b' }] } }]).toArray(),
    code: 12,
  },
  {
    name: 'an unknown option is 40415',
    run: (_c, db) => db.aggregate([{ $listLocalSessions: { everyone: true } }]).toArray(),
    code: 40415,
  },
  {
    name: 'a spec that is no object is TypeMismatch',
    run: (_c, db) => db.aggregate([{ $listLocalSessions: 1 }]).toArray(),
    code: 14,
  },
  {
    name: 'on a collection it is InvalidNamespace',
    run: (c) => c.aggregate([{ $listLocalSessions: {} }]).toArray(),
    code: 73,
  },
  {
    name: '{aggregate: 1} with an unknown first stage is the unrecognized stage error',
    run: (_c, db) => db.aggregate([{ $noSuchStage: {} }]).toArray(),
    code: 40324,
  },
];

describeCompat('list-local-sessions', cases);
