import { Field, ObjectType } from 'type-graphql';
import { JSONObject } from '../graphql/scalars.js';
import { Paginated } from '../shared/pagination.js';
import { ApiKeyUsage } from './api-key-usage.model.js';
import { ApiKey, ApiKeySummary } from './api-key.model.js';

/** What `createApiKey` and `rollApiKey` answer: the record and its new secret, shown this once. */
@ObjectType({ description: 'An API key with its new secret `key`, shown this once (createApiKey, rollApiKey).' })
export class ApiKeyWithSecret extends ApiKey {
  @Field({ description: 'The full secret (ak_<keyId>_...). Only its SHA-256 is stored: it cannot be shown again.' })
  key!: string;
}

/** One page of `apiKeys`. */
@ObjectType({ description: 'A page of API keys.' })
export class ApiKeyPage extends Paginated(ApiKey) {}

/** One page of `apiKeyUsageLogs`. */
@ObjectType({ description: "A page of an API key's usage log." })
export class ApiKeyUsagePage extends Paginated(ApiKeyUsage, { itemsDescription: 'The uses of this page, most recent first.' }) {}

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
