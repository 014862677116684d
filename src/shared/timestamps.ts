import { prop } from '@typegoose/typegoose';
import { trusted, Types } from 'mongoose';
import { Field } from 'type-graphql';

/**
 * `createdAt` and `updatedAt` of a class stored with mongoose's `timestamps`,
 * declared once for every area: the GraphQL field, its description and the
 * stored path with a default for records stored without it.
 *
 * Imported or legacy records may lack the timestamps, and both fields are
 * non-null on both surfaces: without a value, one such record made its read,
 * its update's answer and every list page holding it a 500. A schema default
 * is what every read path applies: mongoose when it hydrates a document, and
 * `Model.applyDefaults` / leanDefaults on lean or raw records. So `createdAt`
 * defaults to the time in the record's ObjectId (when it was made, to the
 * second) and `updatedAt` to `createdAt`. A new document gets nothing from
 * these defaults (`$isNew`): mongoose's timestamps stamp it when saved.
 * A read writes nothing: the portions update `$set`s only `updatedAt`, and
 * only a document loaded and then `save()`d stores its defaults too (as
 * mongoose does for every default).
 */

/** What a default sees as `this`: a document, a lean record, or (for an upsert's defaults) a query. */
interface Stamped {
  $isNew?: boolean;
  _id?: { getTimestamp?: () => Date };
  createdAt?: Date | null;
}

function createdAtOfId(this: Stamped): Date | undefined {
  if (this.$isNew) return undefined;
  return typeof this._id?.getTimestamp === 'function' ? this._id.getTimestamp() : undefined;
}

function updatedAtOfCreated(this: Stamped): Date | undefined {
  if (this.$isNew) return undefined;
  return this.createdAt ?? createdAtOfId.call(this);
}

/**
 * Immutable once it holds a value, as mongoose's timestamps declare `createdAt`.
 * Not before: mongoose applies a default through the path's setters, and a plain
 * `immutable: true` keeps a loaded document's missing value missing.
 */
function holdsCreatedAt(this: { get(path: string): unknown }): boolean {
  return this.get('createdAt') != null;
}

/** `createdAt`: set when the record is first saved, then kept. */
export function CreatedAtField(): PropertyDecorator {
  return (target, propertyKey) => {
    Field(() => Date, {
      description: 'When the record was created. An imported record stored without it answers the time its id was made.',
    })(target, propertyKey);
    prop({ type: () => Date, immutable: holdsCreatedAt, default: createdAtOfId })(target, propertyKey as string);
  };
}

/** `updatedAt`: set on every write. */
export function UpdatedAtField(): PropertyDecorator {
  return (target, propertyKey) => {
    Field(() => Date, {
      description: 'When the record last changed. An imported record stored without it answers its createdAt.',
    })(target, propertyKey);
    prop({ type: () => Date, default: updatedAtOfCreated })(target, propertyKey as string);
  };
}

/**
 * A filter on `createdAt` that agrees with what a record answers: one stored
 * without `createdAt` answers the time of its id (to the second), so it is
 * matched by that time, through `_id`'s order. Both bounds are exclusive.
 * An ObjectId made from second `s` is the first id of that second, hence
 * "after t" is `_id >= first id of the next whole second` and "before t" is
 * `_id < first id of the second t rounds up to`.
 * Its operators are marked `trusted` (sanitizeFilter is on; they are ours).
 */
export function createdBetween(after?: Date | null, before?: Date | null): Record<string, unknown> {
  const stamped: Record<string, Date> = {};
  const byId: Record<string, Types.ObjectId> = {};
  if (after) {
    stamped.$gt = after;
    byId.$gte = firstIdOfSecond(Math.floor(after.getTime() / 1000) + 1);
  }
  if (before) {
    stamped.$lt = before;
    byId.$lt = firstIdOfSecond(Math.ceil(before.getTime() / 1000));
  }
  return { $or: [{ createdAt: trusted(stamped) }, { createdAt: trusted({ $exists: false }), _id: trusted(byId) }] };
}

/** ObjectIds hold a 32-bit unsigned second count: clamp, so a far date still orders. */
function firstIdOfSecond(second: number): Types.ObjectId {
  return Types.ObjectId.createFromTime(Math.min(Math.max(second, 0), 0xffffffff));
}
