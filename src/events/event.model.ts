import { getModelForClass, index, modelOptions, prop, Severity } from '@typegoose/typegoose';
import type { Types } from 'mongoose';
import { Field, ID, ObjectType } from 'type-graphql';
import { JSONObject } from '../graphql/index.js';

/** Who caused an event: a user (token), an API key, or the service itself (system events). */
@ObjectType('EventActor', { description: 'Who caused an event.' })
export class EventActor {
  @Field({ description: 'user, apiKey, or system (an event the service raised by itself).' })
  @prop({ required: true })
  type!: string;

  @Field(() => String, { nullable: true, description: 'The user id or API key id; null for system events.' })
  @prop({ type: () => String, default: null })
  id!: string | null;
}

/** The record an event is about. */
@ObjectType('EventTarget', { description: 'The record an event is about.' })
export class EventTarget {
  @Field({ description: 'The GraphQL type name of the record, e.g. ApiKey.' })
  @prop({ required: true })
  type!: string;

  @Field(() => String, { nullable: true, description: 'The record id.' })
  @prop({ type: () => String, default: null })
  id!: string | null;
}

/** An event is written `pending` before the change it describes and becomes `committed` once the change is known to have happened. */
export enum EventState {
  pending = 'pending',
  committed = 'committed',
}

/** The collection events are stored in (the outbox). */
export const EVENT_COLLECTION = 'events';

/**
 * One event: what happened in the service, for webhooks, subscriptions and
 * `GET /events`. Only `committed` events are ever read, delivered or
 * streamed. `committedAt` orders the tail every instance follows
 * (event-tail.ts); `dedupeKey` makes a system event happen once across
 * instances (a second insert with the same key is refused by the index);
 * `expireAt` is when retention removes it. The tail and the webhook catch-up
 * page by (committedAt, _id): their index has both, so a read examines the new
 * events only (with committedAt alone the read sorted every committed event).
 */
@index({ tenant_id: 1, _id: -1 })
@index({ tenant_id: 1, type: 1, _id: -1 })
@index({ committedAt: 1, _id: 1 })
@index({ state: 1, _id: 1 })
@index({ dedupeKey: 1 }, { unique: true, partialFilterExpression: { dedupeKey: { $type: 'string' } } })
@index({ expireAt: 1 }, { expireAfterSeconds: 0 })
@modelOptions({
  schemaOptions: { collection: EVENT_COLLECTION },
  options: { allowMixed: Severity.ALLOW },
})
@ObjectType('Event', { description: 'Something that happened in the service: a change (its audit action) or a system event.' })
export class ServiceEvent {
  readonly _id!: Types.ObjectId;

  @Field(() => ID, { description: 'The event id (24 hexadecimal characters); webhooks send it as webhook-id.' })
  readonly id!: string;

  @Field({ description: 'The audit action (e.g. api-keys.revoke) or a system event type (e.g. api-keys.expiring).' })
  @prop({ required: true })
  type!: string;

  @Field(() => String, { nullable: true, description: 'The tenant the event belongs to; null for platform-wide events.' })
  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  @Field({ description: 'When it happened.' })
  @prop({ required: true })
  occurredAt!: Date;

  @Field(() => EventActor)
  @prop({ type: () => EventActor, _id: false, required: true })
  actor!: EventActor;

  @Field(() => EventTarget)
  @prop({ type: () => EventTarget, _id: false, required: true })
  target!: EventTarget;

  @Field(() => JSONObject, { description: 'What else is known: `changes` (the field names a change gave, never values) or the system event\'s facts.' })
  @prop({ type: () => Object, default: () => ({}) })
  data!: Record<string, unknown>;

  @prop({ required: true, enum: EventState, type: () => String })
  state!: EventState;

  /** Set exactly when the event commits (null while pending): the tail selects committed events by it alone. */
  @prop({ type: () => Date, default: null })
  committedAt!: Date | null;

  @prop({ type: () => String, default: undefined })
  dedupeKey?: string;

  @prop({ required: true })
  expireAt!: Date;
}

export const EventModel = getModelForClass(ServiceEvent);
