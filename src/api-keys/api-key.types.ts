import { Field, ObjectType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { ApiKeyUsage } from './api-key-usage.model.js';
import { ApiKey } from './api-key.model.js';

/** What `createApiKey` and `rollApiKey` answer: the record and its new secret, shown this once. */
@ObjectType({ description: 'An API key with its new secret `key`, shown this once (createApiKey, rollApiKey).' })
export class ApiKeyWithSecret extends ApiKey {
  @Field(() => String, {
    nullable: true,
    description:
      'The full secret (ak_<keyId>_...). Only its SHA-256 is stored: it cannot be shown again, so it is null in an answer ' +
      'replayed for a repeated Idempotency-Key (see detail).',
  })
  key!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Null, except in an answer replayed for a repeated Idempotency-Key: it says the secret is not shown again and how to get a new one (roll the key).',
  })
  detail?: string | null;
}

/** One page of `apiKeys`. */
@ObjectType({ description: 'A page of API keys.' })
export class ApiKeyPage extends Paginated(ApiKey) {}

/** One page of `apiKeyUsageLogs`. */
@ObjectType({ description: "A page of an API key's usage log." })
export class ApiKeyUsagePage extends Paginated(ApiKeyUsage, { itemsDescription: 'The uses of this page, most recent first.' }) {}
