import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEnum,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
} from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';
import { permissions } from '../auth/index.js';
import { JSONObject } from '../graphql/scalars.js';
import { IsIntegerIn } from '../shared/integer-rule.js';
import { IdArgs, ObjectIdField } from '../shared/object-id.js';
import { PageArgs } from '../shared/pagination.js';
import { API_KEY_LIMITS, IsFutureDate, IsIpOrCidr, IsOrigin, MaxDepth, MaxJsonBytes, MaxKeys, StorableKeys } from './api-key-limits.js';
import { ApiKeyStatus, DEFAULT_RATE_LIMIT, type ApiKey } from './api-key.model.js';

const L = API_KEY_LIMITS;

/**
 * `createApiKey` / `POST /api-keys`: the key's settings, flat. Every rule is
 * declared here, once; a refusal is 400 naming each failing field and rule
 * and writes nothing. That no scope exceeds the caller's own permissions,
 * and that a key made with an API key stays within that key's limits
 * (api-key-bounds.ts), are the service's checks (403).
 */
@ArgsType()
export class CreateApiKeyArgs implements Partial<ApiKey> {
  @Field({ description: `Descriptive name, 1 to ${L.nameLength} characters.` })
  @IsString()
  @Length(1, L.nameLength)
  name!: string;

  @Field(() => String, { nullable: true, description: `Detailed purpose of the key, up to ${L.descriptionLength} characters.` })
  @IsOptional()
  @IsString()
  @MaxLength(L.descriptionLength)
  description?: string | null;

  @Field(() => [String], {
    description: 'Permissions of the catalogue (`permissions`), each at most once, all held by you; at least one.',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(permissions.length)
  @ArrayUnique()
  @IsIn(permissions, { each: true, message: 'each of $property must be a permission of the catalogue (see permissions)' })
  scopes!: string[];

  @Field(() => [String], {
    nullable: true,
    description:
      `Origins (http(s)://host[:port], no path) the key may be used from, up to ${L.allowedOrigins}; none: any. ` +
      "Called with an API key that lists origins: each one of them; none: that key's.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.allowedOrigins)
  @IsOrigin({ each: true })
  allowedOrigins?: string[];

  @Field(() => [String], {
    nullable: true,
    description:
      `IPv4/IPv6 addresses or CIDR blocks the key may be used from, up to ${L.allowedIPs}; none: any. ` +
      "Called with an API key that lists addresses: each within one of its entries; none: that key's.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.allowedIPs)
  @IsIpOrCidr({ each: true })
  allowedIPs?: string[];

  @Field(() => Date, {
    nullable: true,
    description: "When the key expires (in the future); none: never. Called with an API key that expires: no later than it; none: when it does.",
  })
  @IsOptional()
  @IsFutureDate()
  expiresAt?: Date | null;

  // No GraphQL default: a caller using an API key gets the default only up to that key's own limit (api-key-bounds.ts). null reads as absent.
  @Field(() => Int, {
    nullable: true,
    description:
      `Requests per hour, 1 to ${L.rateLimitMax}; none: ${DEFAULT_RATE_LIMIT}. ` +
      "Called with an API key: at most that key's limit, and its limit when lower than the default.",
  })
  @IsOptional()
  @IsIntegerIn({ min: 1, max: L.rateLimitMax })
  rateLimit?: number;

  @Field(() => JSONObject, {
    nullable: true,
    description: `Free-form JSON object: at most ${L.metadataKeys} keys, ${L.metadataBytes} bytes as JSON and ${L.metadataDepth} levels deep.`,
  })
  @IsOptional()
  @IsObject()
  @MaxKeys(L.metadataKeys)
  @MaxJsonBytes(L.metadataBytes)
  @MaxDepth(L.metadataDepth)
  @StorableKeys()
  metadata?: Record<string, unknown>;
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
export class ApiKeyIdArgs extends IdArgs {
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
