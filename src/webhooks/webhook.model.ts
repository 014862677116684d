import { getModelForClass, index, modelOptions, prop, Severity } from '@typegoose/typegoose';
import type { Types } from 'mongoose';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { CreatedAtField, UpdatedAtField } from '../shared/index.js';

/**
 * A webhook endpoint: where a tenant's events of the listed types are
 * POSTed (Standard Webhooks). `secretSealed` is the signing secret
 * encrypted at rest (webhook-secret.ts): never a GraphQL field, never read
 * back but to sign. A platform administrator's endpoint has tenant_id null
 * and receives every tenant's events.
 */
@index({ tenant_id: 1, _id: 1 })
@index({ enabled: 1 })
@modelOptions({ schemaOptions: { collection: 'webhooks', timestamps: true }, options: { allowMixed: Severity.ERROR } })
@ObjectType({ description: 'A webhook endpoint: events of the listed types are POSTed to its url, signed (Standard Webhooks).' })
export class Webhook {
  @Field(() => ID, { description: 'The record id (24 hexadecimal characters).' })
  readonly id!: string;

  @Field({ description: 'Where events are POSTed (https in production).' })
  @prop({ required: true })
  url!: string;

  @Field(() => [String], { description: 'Event types delivered (see the event catalogue); ["*"]: every type.' })
  @prop({ type: () => [String], default: [] })
  events!: string[];

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  description?: string | null;

  @Field({ description: 'Whether events are delivered; the service disables an endpoint failing for 5 days.' })
  @prop({ required: true, default: true })
  enabled!: boolean;

  @Field(() => String, { nullable: true, description: 'Why it was disabled (by the service or by updateWebhook); null while enabled.' })
  @prop({ type: () => String, default: null })
  disabledReason?: string | null;

  @Field(() => Date, { nullable: true, description: 'When it was disabled; null while enabled.' })
  @prop({ type: () => Date, default: null })
  disabledAt?: Date | null;

  @Field(() => Date, { nullable: true, description: 'The first failed attempt since the last success; null when the last attempt succeeded.' })
  @prop({ type: () => Date, default: null })
  failingSince?: Date | null;

  @Field(() => String, { nullable: true, description: 'The tenant whose events it receives; null: a platform endpoint, every tenant\'s.' })
  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  @Field({ description: 'Id of the user who created it.' })
  @prop({ required: true })
  createdBy!: string;

  /** The signing secret, sealed (webhook-secret.ts). */
  @prop({ required: true })
  secretSealed!: string;

  @CreatedAtField()
  createdAt!: Date;

  @UpdatedAtField()
  updatedAt!: Date;
}

export enum DeliveryStatus {
  pending = 'pending',
  delivered = 'delivered',
  failed = 'failed',
}
/** The error of a pending delivery held (no due time) while its endpoint is disabled. */
export const HELD = 'held: the endpoint is disabled; it is sent when the endpoint is enabled again';
registerEnumType(DeliveryStatus, { name: 'WebhookDeliveryStatus', description: 'pending: waiting or retrying; delivered: a 2xx; failed: every attempt failed.' });

/**
 * One event to one endpoint. Unique per (eventId, webhookId): instances fanning
 * out the same event create one. A worker claims a due one by setting
 * `leaseUntil` (webhook-worker.ts); `payload` is the event as sent.
 */
@index({ eventId: 1, webhookId: 1 }, { unique: true })
@index({ webhookId: 1, _id: -1 })
@index({ status: 1, nextAttemptAt: 1, leaseUntil: 1 })
@index({ expireAt: 1 }, { expireAfterSeconds: 0 })
@modelOptions({ schemaOptions: { collection: 'webhookdeliveries', timestamps: true }, options: { allowMixed: Severity.ALLOW } })
@ObjectType({ description: 'One event sent (or to be sent) to one webhook endpoint.' })
export class WebhookDelivery {
  readonly _id!: Types.ObjectId;

  @Field(() => ID)
  readonly id!: string;

  @Field(() => ID, { description: 'The webhook endpoint.' })
  @prop({ required: true })
  webhookId!: string;

  @Field(() => ID, { description: 'The event (sent as webhook-id).' })
  @prop({ required: true })
  eventId!: string;

  @Field({ description: 'The event type.' })
  @prop({ required: true })
  type!: string;

  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  @Field(() => Int, { description: 'Attempts made so far.' })
  @prop({ required: true, default: 0 })
  attempts!: number;

  @Field(() => DeliveryStatus)
  @prop({ required: true, enum: DeliveryStatus, type: () => String, default: DeliveryStatus.pending })
  status!: DeliveryStatus;

  @Field(() => Int, { nullable: true, description: 'The HTTP status of the last attempt; null when none came (timeout, refused connection).' })
  @prop({ type: () => Number, default: null })
  responseStatus?: number | null;

  @Field(() => Int, { nullable: true, description: 'How long the last attempt took, in milliseconds.' })
  @prop({ type: () => Number, default: null })
  durationMs?: number | null;

  @Field(() => Date, { nullable: true, description: 'When the next attempt is due; null once delivered or failed, and while held (pending) by a disabled endpoint.' })
  @prop({ type: () => Date, default: null })
  nextAttemptAt?: Date | null;

  @Field(() => Date, { nullable: true })
  @prop({ type: () => Date, default: null })
  lastAttemptAt?: Date | null;

  @Field(() => String, { nullable: true, description: 'Why the last attempt failed, briefly.' })
  @prop({ type: () => String, default: null })
  error?: string | null;

  /** The event as POSTed (not answered: the event is in GET /events). */
  @prop({ type: () => Object, required: true })
  payload!: Record<string, unknown>;

  /** A worker holds it until then (a crashed worker's claim is retaken after). */
  @prop({ type: () => Date, default: () => new Date(0) })
  leaseUntil?: Date;

  @prop({ type: () => String, default: null })
  leaseOwner?: string | null;

  /** EVENT_RETENTION after it was last due or attempted; the TTL index removes it then. */
  @prop({ type: () => Date })
  expireAt?: Date;

  /** Set by retryWebhookDelivery: one more attempt, failed again if it fails. */
  @prop({ type: () => Boolean, default: false })
  manualRetry?: boolean;

  @CreatedAtField()
  createdAt!: Date;

  @UpdatedAtField()
  updatedAt!: Date;
}

/** The fan-out's watermark, one document in the database: events committed while no instance ran are caught up from it. */
@modelOptions({ schemaOptions: { collection: 'webhookcursors' } })
export class WebhookCursor {
  @prop({ required: true })
  _id!: string;

  @prop({ required: true })
  committedAt!: Date;
}

export const WebhookModel = getModelForClass(Webhook);
export const WebhookDeliveryModel = getModelForClass(WebhookDelivery);
export const WebhookCursorModel = getModelForClass(WebhookCursor);
