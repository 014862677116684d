import { AsyncLocalStorage } from 'node:async_hooks';
import type { Types } from 'mongoose';

/**
 * The evidence of the outbox (docs/events.md "The event model"): every
 * document an audited call writes carries the call's event id, in the same
 * single-document write as the change. A pending event whose id is found in
 * a record happened; the reconciler (event-reconciler.ts) commits it.
 */
export const EVENT_IDS_FIELD = '_events';
/** The newest ids a record keeps: a later change may come before a crashed call is reconciled. */
export const KEPT_EVENT_IDS = 16;

const stamping = new AsyncLocalStorage<Types.ObjectId>();

/** Runs `call` with every write it makes to a stamped collection carrying `eventId`. */
export function withEventStamp<T>(eventId: Types.ObjectId, call: () => Promise<T>): Promise<T> {
  return stamping.run(eventId, call);
}

/**
 * Runs the undo of a change the call under way made and is refusing (a change
 * that left no active platform administrator, a role given to a user while it
 * was deleted): outside the call's stamping, with `unstamp` the update part
 * that takes the call's id back out of the record (`{}` outside a call).
 * Otherwise a crash before the call's event is removed would leave the record
 * as evidence of a change that did not stand, and the reconciler would commit it.
 */
export function undoingStamp<T>(undo: (unstamp: { $pull?: Record<string, Types.ObjectId> }) => PromiseLike<T>): Promise<T> {
  const id = stamping.getStore();
  // Awaited inside: a mongoose query runs when awaited, and must run outside the stamping too.
  return stamping.exit(async () => await undo(id ? { $pull: { [EVENT_IDS_FIELD]: id } } : {}));
}

/** The reads made of a stamped collection for its evidence (a Model.collection): the reconciler's, and the outbox's check that a record to remove exists. */
export interface EvidenceCollection {
  find(filter: object, options: object): { toArray(): Promise<Array<Record<string, unknown>>> };
  findOne(filter: object, options: object): Promise<Record<string, unknown> | null>;
}

/** A collection as mongoose's Model.collection is: the one object both model writes and driver writes go through. */
type WritableCollection = Record<string, unknown>;
type Write = (...args: unknown[]) => unknown;

/**
 * Makes every write through these collections (mongoose's model writes and
 * the stores' `.collection.` writes alike: both call the same collection
 * object) carry the event id of the audited call under way, if any. Deletes
 * carry nothing: a hard delete leaves no record (the reconciler reads absence).
 */
export function stampEventIds(collections: readonly object[]): void {
  for (const collection of collections as WritableCollection[]) {
    if (stamped.has(collection)) continue;
    stamped.add(collection);
    for (const [method, stamp] of Object.entries(STAMPS)) {
      const write = (collection[method] as Write).bind(collection);
      collection[method] = (...args: unknown[]) => {
        const id = stamping.getStore();
        return write(...(id ? stamp(args, id) : args));
      };
    }
  }
}

const stamped = new WeakSet<object>();

type Stamp = (args: unknown[], id: Types.ObjectId) => unknown[];
type Doc = Record<string, unknown>;

// A document written again whole (an undo re-inserting a record) keeps the ids it carried: they are other calls' evidence.
const onDocument = (doc: Doc, id: Types.ObjectId): Doc => {
  const carried = Array.isArray(doc[EVENT_IDS_FIELD]) ? (doc[EVENT_IDS_FIELD] as unknown[]) : [];
  return { ...doc, [EVENT_IDS_FIELD]: [...carried, id].slice(-KEPT_EVENT_IDS) };
};
const onUpdate = (update: unknown, id: Types.ObjectId): unknown => {
  // A pipeline update or a replacement has no $push: none of the audited stores sends one; left as it is.
  if (!update || typeof update !== 'object' || Array.isArray(update) || !Object.keys(update).some((key) => key.startsWith('$'))) return update;
  const doc = update as Doc;
  return { ...doc, $push: { ...(doc['$push'] as Doc | undefined), [EVENT_IDS_FIELD]: { $each: [id], $slice: -KEPT_EVENT_IDS } } };
};
const withArg = (args: unknown[], at: number, value: unknown): unknown[] => args.map((arg, i) => (i === at ? value : arg));

const STAMPS: Record<string, Stamp> = {
  insertOne: (args, id) => withArg(args, 0, onDocument(args[0] as Doc, id)),
  insertMany: (args, id) => withArg(args, 0, (args[0] as Doc[]).map((doc) => onDocument(doc, id))),
  updateOne: (args, id) => withArg(args, 1, onUpdate(args[1], id)),
  updateMany: (args, id) => withArg(args, 1, onUpdate(args[1], id)),
  findOneAndUpdate: (args, id) => withArg(args, 1, onUpdate(args[1], id)),
  replaceOne: (args, id) => withArg(args, 1, onDocument(args[1] as Doc, id)),
  findOneAndReplace: (args, id) => withArg(args, 1, onDocument(args[1] as Doc, id)),
  bulkWrite: (args, id) => withArg(args, 0, (args[0] as Doc[]).map((op) => stampOperation(op, id))),
};

function stampOperation(op: Doc, id: Types.ObjectId): Doc {
  const [kind, body] = Object.entries(op)[0] as [string, Doc];
  if (kind === 'insertOne') return { insertOne: { ...body, document: onDocument(body['document'] as Doc, id) } };
  if (kind === 'updateOne' || kind === 'updateMany') return { [kind]: { ...body, update: onUpdate(body['update'], id) } };
  if (kind === 'replaceOne') return { replaceOne: { ...body, replacement: onDocument(body['replacement'] as Doc, id) } };
  return op;
}
