import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDate,
  IsEnum,
  IsIn,
  IsIP,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateBy,
} from 'class-validator';
import { ArgsType, Field, Int, registerEnumType } from 'type-graphql';
import { permissions } from '../auth/index.js';
import { JSONObject } from '../graphql/index.js';
import { declaredField, IdArgs, IsIntegerIn, ObjectIdField, PageArgs, type DeclaredField } from '../shared/index.js';
import { API_KEY_LIMITS, IsFutureDate, IsIpOrCidr, IsOrigin, MaxDepth, MaxJsonBytes, MaxKeys, StorableKeys } from './api-key-limits.js';
import { ApiKeyStatus, DEFAULT_RATE_LIMIT, type ApiKey } from './api-key.model.js';

const L = API_KEY_LIMITS;

/**
 * Every rule of a key's settings, declared once (shared/declared-field.ts):
 * create and update apply the same declarations and differ in presence and,
 * where create says more (what an omitted setting becomes), description. A
 * refusal is 400 naming each failing field and rule and writes nothing. That
 * no scope exceeds the caller's own permissions, and that a key acting stays
 * within its own limits (api-key-bounds.ts), are the service's checks (403).
 */
const ApiKeyField = {
  name: declaredField(() => String, `Descriptive name, 1 to ${L.nameLength} characters.`, IsString(), Length(1, L.nameLength)),
  description: declaredField(() => String, `Detailed purpose of the key, up to ${L.descriptionLength} characters.`, IsString(), MaxLength(L.descriptionLength)),
  scopes: declaredField(
    () => [String],
    'Permissions of the catalogue (`permissions`), each at most once, all held by you; at least one.',
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(permissions.length),
    ArrayUnique(),
    IsIn(permissions, { each: true, message: 'each of $property must be a permission of the catalogue (see permissions)' }),
  ),
  allowedOrigins: declaredField(
    () => [String],
    `Origins (http(s)://host[:port], no path) the key may be used from, up to ${L.allowedOrigins}; none: any.`,
    IsArray(),
    ArrayMaxSize(L.allowedOrigins),
    IsOrigin({ each: true }),
  ),
  allowedIPs: declaredField(
    () => [String],
    `IPv4/IPv6 addresses or CIDR blocks the key may be used from, up to ${L.allowedIPs}; none: any.`,
    IsArray(),
    ArrayMaxSize(L.allowedIPs),
    IsIpOrCidr({ each: true }),
  ),
  expiresAt: declaredField(() => Date, 'When the key expires (in the future); none: never.', IsFutureDate()),
  rateLimit: declaredField(() => Int, `Requests per hour, 1 to ${L.rateLimitMax}.`, IsIntegerIn({ min: 1, max: L.rateLimitMax })),
  metadata: declaredField(
    () => JSONObject,
    `Free-form JSON object: at most ${L.metadataKeys} keys, ${L.metadataBytes} bytes as JSON and ${L.metadataDepth} levels deep.`,
    IsObject(),
    MaxKeys(L.metadataKeys),
    MaxJsonBytes(L.metadataBytes),
    MaxDepth(L.metadataDepth),
    StorableKeys(),
  ),
} satisfies Record<string, DeclaredField>;

/** `createApiKey` / `POST /api-keys`: the key's settings, flat. */
@ArgsType()
export class CreateApiKeyArgs implements Partial<ApiKey> {
  @ApiKeyField.name() name!: string;
  @ApiKeyField.description('optional') description?: string | null;
  @ApiKeyField.scopes() scopes!: string[];

  @ApiKeyField.allowedOrigins(
    'optional',
    `Origins (http(s)://host[:port], no path) the key may be used from, up to ${L.allowedOrigins}; none: any. ` +
      "Called with an API key that lists origins: each one of them; none: that key's.",
  )
  allowedOrigins?: string[];

  @ApiKeyField.allowedIPs(
    'optional',
    `IPv4/IPv6 addresses or CIDR blocks the key may be used from, up to ${L.allowedIPs}; none: any. ` +
      "Called with an API key that lists addresses: each within one of its entries; none: that key's.",
  )
  allowedIPs?: string[];

  @ApiKeyField.expiresAt('optional', "When the key expires (in the future); none: never. Called with an API key that expires: no later than it; none: when it does.")
  expiresAt?: Date | null;

  // No GraphQL default: a caller using an API key gets the default only up to that key's own limit (api-key-bounds.ts). null reads as absent.
  @ApiKeyField.rateLimit(
    'optional',
    `Requests per hour, 1 to ${L.rateLimitMax}; none: ${DEFAULT_RATE_LIMIT}. ` +
      "Called with an API key: at most that key's limit, and its limit when lower than the default.",
  )
  rateLimit?: number;

  @ApiKeyField.metadata('optional') metadata?: Record<string, unknown>;
}

/** `apiKeys` / `GET /api-keys`: a page of the keys you may view, optionally by status. */
@ArgsType()
export class ApiKeysArgs extends PageArgs {
  @Field(() => ApiKeyStatus, { nullable: true, description: 'Only keys in this status now.' })
  @IsOptional()
  @IsEnum(ApiKeyStatus)
  status?: ApiKeyStatus | null;
}

/** `apiKey` / `GET /api-keys/{id}`. */
@ArgsType()
export class ApiKeyArgs extends IdArgs {
  @Field(() => Boolean, {
    defaultValue: false,
    description: 'Also answer usageLogs: the most recent uses first, at most 100.',
  })
  @IsBoolean()
  includeUsageLogs: boolean = false;
}

/** `apiKeyUsageLogs` / `GET /api-keys/{id}/usage-logs`: a page of a key's uses, newest first. */
@ArgsType()
export class ApiKeyUsageLogsArgs extends PageArgs {
  @ObjectIdField({ description: 'The API key id.' })
  id!: string;
}

/** `revokeApiKey` / `PATCH /api-keys/{id}/revoke`. */
@ArgsType()
export class RevokeApiKeyArgs extends IdArgs {
  // No default: a revoke without it records no `dryRun` among its audit changes.
  @Field(() => Boolean, {
    nullable: true,
    description: 'true: revoke nothing, answer the key unchanged with wouldRevoke (REST: ?dryRun=true); no audit record.',
  })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean | null;
}

/** `apiKeyLineage` / `GET /api-keys/{id}/lineage`. */
@ArgsType()
export class ApiKeyLineageArgs extends IdArgs {}

/** `rollApiKey` / `POST /api-keys/{id}/roll`. */
@ArgsType()
export class RollApiKeyArgs extends IdArgs {
  @Field(() => Int, {
    defaultValue: 0,
    description: `Seconds the previous secret keeps working, 0 to ${L.gracePeriodSecondsMax}; 0: it stops at once.`,
  })
  @IsIntegerIn({ min: 0, max: L.gracePeriodSecondsMax })
  gracePeriodSeconds: number = 0;
}

/** The size of `apiKeyUsage`'s buckets: UTC hours, or UTC days summed from them. */
export enum UsageGranularity {
  hour = 'hour',
  day = 'day',
}
registerEnumType(UsageGranularity, { name: 'UsageGranularity', description: 'hour: UTC hours; day: UTC days (00:00 to 24:00 UTC).' });

/** The most buckets one `apiKeyUsage` answers. */
export const MAX_USAGE_BUCKETS = 1000;
/** The most days a scope report or rate-limit preview looks back (the configured rollup retention may bound it lower). */
export const MAX_REPORT_DAYS = 3660;

/** Bucket sizes; days are UTC days (00:00 to 24:00 UTC), summed from the hourly rollups. */
export const BUCKET_MS: Record<UsageGranularity, number> = { hour: 3_600_000, day: 86_400_000 };

/** The buckets [from, to) spans: from's bucket to the one holding the last instant before `to`. */
export function bucketCount(granularity: UsageGranularity, from: Date, to: Date): number {
  const size = BUCKET_MS[granularity];
  return Math.floor((to.getTime() - 1) / size) - Math.floor(from.getTime() / size) + 1;
}

/** rule `isAfterFrom`: `to` later than `from`. */
function IsAfterFrom(): PropertyDecorator {
  return ValidateBy({
    name: 'isAfterFrom',
    validator: {
      validate: (value, args) => value instanceof Date && (args?.object as UsageArgs).from instanceof Date && value > (args?.object as UsageArgs).from,
      defaultMessage: () => '$property must be later than from',
    },
  });
}

/** rule `maxBuckets`: [from, to) spans at most MAX_USAGE_BUCKETS buckets of the granularity. */
function MaxBuckets(): PropertyDecorator {
  return ValidateBy({
    name: 'maxBuckets',
    constraints: [MAX_USAGE_BUCKETS],
    validator: {
      validate: (value, args) => {
        const { from, granularity } = args?.object as UsageArgs;
        if (!(value instanceof Date) || !(from instanceof Date) || !(granularity in BUCKET_MS)) return true; // the other rules say why
        return bucketCount(granularity, from, value) <= MAX_USAGE_BUCKETS;
      },
      defaultMessage: () => `$property must be within ${MAX_USAGE_BUCKETS} buckets of from at the granularity`,
    },
  });
}

/** `apiKeyUsage` / `GET /api-keys/{id}/usage`: a key's uses over [from, to), by outcome, in buckets. */
@ArgsType()
export class UsageArgs extends IdArgs {
  @Field(() => UsageGranularity, { description: 'hour or day (UTC).' })
  @IsEnum(UsageGranularity)
  granularity!: UsageGranularity;

  @Field(() => Date, { description: 'Start of the range (inclusive); its bucket is the first.' })
  @IsDate()
  from!: Date;

  @Field(() => Date, { description: `End of the range (exclusive), later than from, at most ${MAX_USAGE_BUCKETS} buckets on.` })
  @IsDate()
  @IsAfterFrom()
  @MaxBuckets()
  to!: Date;
}

/** The look-back of a scope report or rate-limit preview. */
@ArgsType()
export class UsageDaysArgs extends IdArgs {
  @Field(() => Int, { defaultValue: 30, description: 'Days looked back, from 1 to the rollup retention (USAGE_ROLLUP_RETENTION); default 30.' })
  @IsIntegerIn({ min: 1, max: MAX_REPORT_DAYS })
  days: number = 30;
}

/** `apiKeyRateLimitPreview` / `GET /api-keys/{id}/rate-limit-preview`. */
@ArgsType()
export class RateLimitPreviewArgs extends UsageDaysArgs {
  @Field(() => Int, { description: `The proposed requests per hour, 1 to ${L.rateLimitMax}.` })
  @IsIntegerIn({ min: 1, max: L.rateLimitMax })
  rateLimit!: number;
}

// Managing a key: update, disable, enable.

/**
 * `updateApiKey` / `PATCH /api-keys/{id}`: the create's fields, each
 * declared once above, all partial: a left-out field stays, `null` clears an
 * optional one (no description, no expiry, any origin or address, the
 * default rate limit, empty metadata); name and scopes cannot be cleared.
 * The secret never changes here.
 */
@ArgsType()
export class UpdateApiKeyArgs extends IdArgs {
  @ApiKeyField.name('unclearable') name?: string;
  @ApiKeyField.description('optional') description?: string | null;
  @ApiKeyField.scopes('unclearable') scopes?: string[];

  @ApiKeyField.allowedOrigins(
    'optional',
    `Origins (http(s)://host[:port], no path) the key may be used from, up to ${L.allowedOrigins}; null or none: any. Replaces the stored list whole.`,
  )
  allowedOrigins?: string[] | null;

  @ApiKeyField.allowedIPs(
    'optional',
    `IPv4/IPv6 addresses or CIDR blocks the key may be used from, up to ${L.allowedIPs}; null or none: any. Replaces the stored list whole.`,
  )
  allowedIPs?: string[] | null;

  @ApiKeyField.expiresAt('optional', 'When the key expires (in the future); null: never.') expiresAt?: Date | null;
  @ApiKeyField.rateLimit('optional', `Requests per hour, 1 to ${L.rateLimitMax}; null: ${DEFAULT_RATE_LIMIT}.`) rateLimit?: number | null;

  @ApiKeyField.metadata(
    'optional',
    `Free-form JSON object: at most ${L.metadataKeys} keys, ${L.metadataBytes} bytes as JSON and ${L.metadataDepth} levels deep; replaces the stored object whole; null: {}.`,
  )
  metadata?: Record<string, unknown> | null;
}

/** `disableApiKey` / `PATCH /api-keys/{id}/disable`. */
@ArgsType()
export class DisableApiKeyArgs extends IdArgs {
  @Field(() => String, { nullable: true, description: `Why the key is paused, 1 to ${L.disabledReasonLength} characters; answered as disabledReason.` })
  @IsOptional()
  @IsString()
  @Length(1, L.disabledReasonLength)
  reason?: string | null;
}

// Verifying a key for another service.

/**
 * `verifyApiKey` / `POST /api-keys/verify`: a key another service received,
 * and what that service knows of who presented it. A malformed key is no
 * 400: it is answered NOT_FOUND, as any key that is not found.
 */
@ArgsType()
export class VerifyApiKeyArgs {
  @Field({ description: 'The secret to check (ak_<keyId>_<secret>), as it was presented.' })
  @IsString()
  key!: string;

  @Field(() => [String], {
    nullable: true,
    description: 'Permissions of the catalogue (`permissions`) the key must act with; one it lacks answers FORBIDDEN.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(permissions.length)
  @IsIn(permissions, { each: true, message: 'each of $property must be a permission of the catalogue (see permissions)' })
  requiredScopes?: string[] | null;

  @Field(() => String, {
    nullable: true,
    description: "The IP address the key was presented from: checked against the key's allowedIPs (a key that lists any needs it).",
  })
  @IsOptional()
  @IsIP()
  ip?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The Origin the key was presented with: checked against the key's allowedOrigins (a key that lists any needs it).",
  })
  @IsOptional()
  @IsOrigin()
  origin?: string | null;
}
