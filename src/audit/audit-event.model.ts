import { buildSchema, getModelForClass, index, modelOptions, Passthrough, plugin, prop, Severity } from '@typegoose/typegoose';
import type { Types } from 'mongoose';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { appendOnly } from './append-only.plugin.js';

/** How the caller authenticated. Values are the wire strings on both surfaces. */
export enum AuditActorType {
  user = 'user',
  apiKey = 'apiKey',
}

registerEnumType(AuditActorType, {
  name: 'AuditActorType',
  description: 'user: signed in with a token; apiKey: called with an API key.',
});

/** Whether the audited operation did what was asked. */
export enum AuditOutcome {
  success = 'success',
  failure = 'failure',
}

registerEnumType(AuditOutcome, {
  name: 'AuditOutcome',
  description: 'success: the operation was carried out; failure: it was refused or failed once it had started.',
});

/** Who did it (stored inside the event). */
@ObjectType({ description: 'Who performed an audited operation.' })
export class AuditActor {
  @Field(() => AuditActorType)
  @prop({ required: true, enum: AuditActorType, type: () => String })
  type!: AuditActorType;

  @Field({ description: 'The user id, or the API key id.' })
  @prop({ required: true })
  id!: string;
}

/** What it was done to (stored inside the event). */
@ObjectType({ description: 'The record an audited operation addressed.' })
export class AuditTarget {
  @Field({ description: 'The GraphQL type name of the record, e.g. MealMenu.' })
  @prop({ required: true })
  type!: string;

  @Field(() => String, { nullable: true, description: 'The record id; null when a create failed before there was one.' })
  @prop({ type: () => String, default: null })
  id!: string | null;
}

/**
 * A class's props as plain nested paths (`actor.type`, `actor.id`) of the
 * event's schema rather than a single-nested subdocument: the same stored
 * shape and the same rules (each required inner path makes the object
 * required), but validating a record builds no subdocument, which was a
 * third of the cost of checking each audit record.
 */
function nestedPaths(of: typeof AuditActor | typeof AuditTarget): Passthrough {
  const { paths } = buildSchema(of, { schemaOptions: { _id: false } });
  return new Passthrough(Object.fromEntries(Object.entries(paths).map(([path, schemaType]) => [path, { ...schemaType.options }])), true);
}

/** The collection typegoose stores audit events in. */
export const AUDIT_EVENT_COLLECTION = 'auditevents';

/**
 * One append-only audit record: written once by the `Audited` middleware for
 * every create, update, delete, revoke, roll and role change, never changed
 * or removed (the `appendOnly` plugin refuses it through the model). It holds
 * the names of the changed fields, never their values.
 */
// Lists are per tenant (a platform administrator: across tenants), newest first by _id,
// optionally narrowed to one actor, target or action, or to a time span.
@index({ tenant_id: 1, _id: -1 })
@index({ tenant_id: 1, 'actor.id': 1, _id: -1 })
@index({ tenant_id: 1, 'target.id': 1, _id: -1 })
@index({ tenant_id: 1, action: 1, _id: -1 })
@index({ tenant_id: 1, at: -1 })
@plugin(appendOnly, { collection: AUDIT_EVENT_COLLECTION })
@modelOptions({
  schemaOptions: { collection: AUDIT_EVENT_COLLECTION },
  options: { allowMixed: Severity.ERROR },
})
@ObjectType({ description: 'One audit record of a create, update, delete, revoke, roll or role change.' })
export class AuditEvent {
  /** The contract names the record's `_id`; `id` stays for clients that cache by it. */
  @Field(() => ID, { description: 'The record id (24 hexadecimal characters).' })
  readonly _id!: Types.ObjectId;

  /** Mongoose's `id` virtual: the `_id` as its 24-hex string. */
  @Field(() => ID, { description: 'The same value as _id, for clients that cache by id.' })
  readonly id!: string;

  @Field(() => AuditActor)
  @prop({ type: () => nestedPaths(AuditActor) })
  actor!: AuditActor;

  @Field(() => String, { nullable: true, description: 'The tenant the operation concerned; null when none was known.' })
  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  @Field({ description: '<area>.<verb>, e.g. menus.create, api-keys.revoke.' })
  @prop({ required: true })
  action!: string;

  @Field(() => AuditTarget)
  @prop({ type: () => nestedPaths(AuditTarget) })
  target!: AuditTarget;

  @Field(() => [String], { description: 'Names of the fields the caller gave; never their values.' })
  @prop({ type: () => [String], default: [] })
  changes!: string[];

  @Field({ description: 'The X-Request-Id of the request.' })
  @prop({ required: true })
  requestId!: string;

  @Field({ description: "The caller's IP address." })
  @prop({ type: () => String, default: '' })
  ip!: string;

  @Field({ description: 'When the operation finished.' })
  @prop({ required: true, default: () => new Date() })
  at!: Date;

  @Field(() => AuditOutcome)
  @prop({ required: true, enum: AuditOutcome, type: () => String })
  outcome!: AuditOutcome;
}

export const AuditEventModel = getModelForClass(AuditEvent);
