import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { JSONObject } from '../graphql/index.js';
import { ApiKeyUsage } from './api-key-usage.model.js';
import { ApiKey, ApiKeyStatus, ApiKeySummary } from './api-key.model.js';

/** What `createApiKey` and `rollApiKey` answer: the record and its new secret, shown this once. */
@ObjectType({ description: 'An API key with its new secret `key`, shown this once (createApiKey, rollApiKey).' })
export class ApiKeyWithSecret extends ApiKey {
  @Field(() => String, {
    nullable: true,
    description:
      'The full secret (ak_<keyId>_...). Only its SHA-256 is stored: it cannot be shown again, so it is null in an answer ' +
      'replayed for a repeated Idempotency-Key (whose `detail` member says how to get a new one: roll the key).',
  })
  key!: string | null;
}

/** One page of `apiKeys`. */
@ObjectType({ description: 'A page of API keys.' })
export class ApiKeyPage extends Paginated(ApiKey) {}

/** One page of `apiKeyUsageLogs`. */
@ObjectType({ description: "A page of an API key's usage log." })
export class ApiKeyUsagePage extends Paginated(ApiKeyUsage, { itemsDescription: 'The uses of this page, most recent first.' }) {}

/** One bucket of `apiKeyUsage`: a key's uses in one hour or day (UTC), by outcome. */
@ObjectType({ description: "A key's uses in one UTC hour or day, by outcome." })
export class UsageBucket {
  @Field({ description: 'Start of the bucket (UTC).' })
  start!: Date;

  @Field(() => Int, { description: 'Every use in the bucket: the sum of the four outcomes.' })
  total!: number;

  @Field(() => Int, { description: 'Uses the key was accepted for and not answered 403.' })
  success!: number;

  @Field(() => Int, { description: 'Uses refused 401 after the key was identified (revoked, expired, disabled).' })
  unauthorized!: number;

  @Field(() => Int, { description: 'Uses refused 403: an IP address or origin the key does not allow, or a permission (scope) it lacks.' })
  forbidden!: number;

  @Field(() => Int, { description: 'Uses refused 429: past the rate limit.' })
  rateLimited!: number;
}

/** What `apiKeyUsage` answers. */
@ObjectType({ description: "An API key's usage over a range, every bucket present (zeros included), oldest first." })
export class ApiKeyUsageReport {
  @Field(() => [UsageBucket])
  buckets!: UsageBucket[];
}

/** What `apiKeyRateLimitPreview` answers. */
@ObjectType({ description: 'What a proposed rate limit would have refused over the last days, from the hourly rollups.' })
export class RateLimitPreview {
  @Field(() => Int, { description: 'The proposed requests per hour.' })
  rateLimit!: number;

  @Field(() => Int, { description: 'Days looked back.' })
  days!: number;

  @Field(() => Int, { description: 'Hours in which the proposed limit would have refused requests.' })
  hoursRefused!: number;

  @Field(() => Int, { description: 'Requests the proposed limit would have refused (those of each hour past it).' })
  requestsRefused!: number;
}

/** What `apiKeyScopeReport` answers. */
@ObjectType({ description: "What an API key's recorded uses of the last days needed, against the scopes it holds." })
export class ApiKeyScopeReport {
  @Field(() => Int, { description: 'Days looked back (the usage log keeps USAGE_LOG_RETENTION of them).' })
  days!: number;

  @Field(() => [String], { description: 'The operations the uses reached (`Query.mealMenus`), sorted.' })
  operations!: string[];

  @Field(() => [String], { description: "The permissions those operations' @Authorized name, sorted: what the uses needed." })
  neededScopes!: string[];

  @Field(() => [String], { description: 'Scopes the key holds and no use needed.' })
  unusedScopes!: string[];

  @Field(() => [String], { description: 'Needed scopes the key does not hold (those uses were refused 403).' })
  missingScopes!: string[];

  @Field(() => [String], { description: 'The smallest set that would have served every use it served: the needed scopes it holds.' })
  suggestedScopes!: string[];
}

/** A key below the root of a lineage, as the JSON it is answered as. */
export interface LineageChild extends Omit<ApiKeySummary, 'lastUsedAt'> {
  lastUsedAt: string | null;
  children: LineageChild[];
}

/** What `apiKeyLineage` answers: a key and the keys made with it, and theirs. */
@ObjectType({ description: 'An API key and the keys made with its credential (createdByKey), and theirs, as a tree.' })
export class ApiKeyLineage extends ApiKeySummary {
  // JSON, not [ApiKeyLineage]: a selection of nested children could follow the tree only as deep as the
  // query depth limit (6), and SOFA's REST document one level.
  @Field(() => [JSONObject], {
    description:
      'The keys made with this key, oldest first, each {id, name, status, lastUsedAt, children} as JSON ' +
      '(lastUsedAt an ISO date or null; children the same shape, to the bottom of the tree).',
  })
  children!: LineageChild[];

  @Field({ description: 'On the root: a bound (10 levels, 500 keys) cut the tree; the keys past it are not shown.' })
  truncated!: boolean;
}

// Verifying a key for another service.

/** What verifying a key found (the credential's check, api-key-check.ts); only VALID is valid. */
export enum ApiKeyVerificationCode {
  VALID = 'VALID',
  NOT_FOUND = 'NOT_FOUND',
  DISABLED = 'DISABLED',
  REVOKED = 'REVOKED',
  EXPIRED = 'EXPIRED',
  FORBIDDEN = 'FORBIDDEN',
  RATE_LIMITED = 'RATE_LIMITED',
}

registerEnumType(ApiKeyVerificationCode, {
  name: 'ApiKeyVerificationCode',
  description:
    'VALID: the key may act; NOT_FOUND: no such key (malformed, unknown, wrong secret, or another tenant\'s); REVOKED, EXPIRED, ' +
    'DISABLED: refused for its state (DISABLED also when its creator is gone or no longer may act); FORBIDDEN: the IP, the ' +
    'origin or a required scope is not allowed; RATE_LIMITED: past its hourly limit.',
});

/** The key's hourly window after a verification that counted. */
@ObjectType({ description: "The key's hourly window after this verification." })
export class VerificationRateLimit {
  @Field(() => Int, { description: 'Uses per hour.' })
  limit!: number;

  @Field(() => Int, { description: 'Uses left in the window.' })
  remaining!: number;

  @Field(() => Int, { description: 'Seconds until the window resets (as the RateLimit header\'s t).' })
  reset!: number;
}

/** What `verifyApiKey` answers: always, for a well-formed request. */
@ObjectType({ description: 'The result of verifying an API key; valid only with code VALID. The key fields are null when it was not found.' })
export class ApiKeyVerification {
  @Field({ description: 'true only with code VALID.' })
  valid!: boolean;

  @Field(() => ApiKeyVerificationCode)
  code!: ApiKeyVerificationCode;

  @Field(() => ID, { nullable: true, description: "The key's id (its `_id`)." })
  id!: string | null;

  @Field(() => String, { nullable: true })
  keyId!: string | null;

  @Field(() => String, { nullable: true, description: "The key's tenant; null for a platform key, or when not found." })
  tenant_id!: string | null;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => [String], { description: 'The scopes the key acts with (those its creator still holds; empty when not found).' })
  scopes!: string[];

  @Field(() => Date, { nullable: true })
  expiresAt!: Date | null;

  @Field(() => VerificationRateLimit, { nullable: true, description: 'Its window after this use; null when the use was not counted.' })
  ratelimit!: VerificationRateLimit | null;
}
