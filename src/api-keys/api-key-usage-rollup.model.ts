import { getModelForClass, index, modelOptions, prop, Severity } from '@typegoose/typegoose';

/** The collection typegoose stores hourly usage rollups in. */
export const API_KEY_USAGE_ROLLUP_COLLECTION = 'apikeyusagerollups';

/** What became of a use of a key, as the rollups count it. */
export const USAGE_OUTCOMES = ['success', 'unauthorized', 'forbidden', 'rateLimited'] as const;
export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];

/** An hour, in milliseconds: the rollups' grain. Hours are UTC hours. */
export const HOUR_MS = 3_600_000;

/**
 * One key's uses in one UTC hour, by outcome: written with the usage batches
 * (`recordUses`, one upsert per key and hour) and kept `USAGE_ROLLUP_RETENTION`
 * (its `expireAt`, honoured by a TTL index), longer than the raw usage log.
 * Day buckets are summed from these hours. Not a GraphQL type: answered as
 * buckets (api-key.types.ts).
 */
@index({ apiKeyId: 1, hour: 1 }, { unique: true })
@index({ expireAt: 1 }, { expireAfterSeconds: 0 })
@modelOptions({
  schemaOptions: { collection: API_KEY_USAGE_ROLLUP_COLLECTION },
  options: { allowMixed: Severity.ERROR },
})
export class ApiKeyUsageRollup {
  /** The key's record id (24 hex). */
  @prop({ required: true })
  apiKeyId!: string;

  /** The start of the UTC hour. */
  @prop({ required: true })
  hour!: Date;

  @prop({ default: 0 })
  success!: number;

  @prop({ default: 0 })
  unauthorized!: number;

  @prop({ default: 0 })
  forbidden!: number;

  @prop({ default: 0 })
  rateLimited!: number;

  /** When the TTL index removes the rollup. */
  @prop({ required: true })
  expireAt!: Date;
}

export const ApiKeyUsageRollupModel = getModelForClass(ApiKeyUsageRollup);
