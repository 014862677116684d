import { getModelForClass, index, modelOptions, prop, Severity } from '@typegoose/typegoose';
import { Field, Int, ObjectType } from 'type-graphql';

/** The collection typegoose stores usage-log entries in. */
export const API_KEY_USAGE_COLLECTION = 'apikeyusages';

/**
 * One accepted use of an API key, as its usage log keeps it (contract "API
 * keys": `at`, `ip`, `origin`, `method`, `path` or operation, `status`).
 * Written in batches by the store (`recordUses`), never by a resolver.
 * `expireAt` (at + the configured retention) lets a TTL index remove old
 * entries; it and `apiKeyId` are stored, not answered.
 */
// A key's log, newest first (ties in `at` broken by _id, so pages are stable).
@index({ apiKeyId: 1, at: -1, _id: -1 })
@index({ expireAt: 1 }, { expireAfterSeconds: 0 })
@modelOptions({
  schemaOptions: { collection: API_KEY_USAGE_COLLECTION },
  options: { allowMixed: Severity.ERROR },
})
@ObjectType({ description: 'One accepted use of an API key.' })
export class ApiKeyUsage {
  /** The key's record id (24 hex). */
  @prop({ required: true })
  apiKeyId!: string;

  @Field({ description: 'When the key was used.' })
  @prop({ required: true })
  at!: Date;

  @Field({ description: "The caller's IP address." })
  @prop({ type: () => String, default: '' })
  ip!: string;

  @Field(() => String, { nullable: true, description: 'The Origin header of the request, when it had one.' })
  @prop({ type: () => String, default: null })
  origin!: string | null;

  @Field({ description: 'The HTTP method.' })
  @prop({ required: true })
  method!: string;

  @Field({ description: 'The request path (/graphql for GraphQL).' })
  @prop({ required: true })
  path!: string;

  @Field(() => String, { nullable: true, description: 'The GraphQL operation name, when the request named one.' })
  @prop({ type: () => String, default: null })
  operation!: string | null;

  @Field(() => Int, { description: 'The HTTP status of the answer.' })
  @prop({ required: true })
  status!: number;

  /** The operations the use reached (`Query.mealMenus`), stored for the scope report; not answered. */
  @prop({ type: () => [String], default: [] })
  operations!: string[];

  /** When the TTL index removes the entry. */
  @prop({ required: true })
  expireAt!: Date;
}

export const ApiKeyUsageModel = getModelForClass(ApiKeyUsage);
