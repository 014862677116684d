import type { GraphQLResolveInfo } from 'graphql';
import { Args, Authorized, Ctx, FieldResolver, Info, Mutation, Query, Resolver, Root, UseMiddleware } from 'type-graphql';
import { Audited, reportAlsoChanged } from '../audit/index.js';
import { selectedFieldNames } from '../graphql/index.js';
import { CurrentActor, type Actor, type AppContext } from '../auth/index.js';
import { IdArgs, type Page } from '../shared/index.js';
import {
  ApiKeyArgs,
  RevokeApiKeyArgs,
  ApiKeyLineageArgs,
  ApiKeysArgs,
  ApiKeyUsageLogsArgs,
  CreateApiKeyArgs,
  DisableApiKeyArgs,
  RateLimitPreviewArgs,
  RollApiKeyArgs,
  UpdateApiKeyArgs,
  UsageArgs,
  UsageDaysArgs,
  VerifyApiKeyArgs,
} from './api-key.inputs.js';
import { ApiKey, ApiKeyStatus, apiKeyStatusAt, type StatusFields } from './api-key.model.js';
import type { ApiKeyLineageNode, ApiKeyService } from './api-key.service.js';
import type { ApiKeyDocument } from './api-key.store.js';
import type { ApiKeyUsage } from './api-key-usage.model.js';
import {
  ApiKeyLineage,
  ApiKeyPage,
  ApiKeyScopeReport,
  ApiKeyUsagePage,
  ApiKeyUsageReport,
  ApiKeyVerification,
  ApiKeyWithSecret,
  RateLimitPreview,
} from './api-key.types.js';

/** Thin: unpack the arguments and the caller, call the service (handed in by the composition root, src/service.ts). */
@Resolver(() => ApiKey)
export class ApiKeyResolver {
  constructor(private readonly service: ApiKeyService) {}

  @Authorized()
  @Query(() => ApiKeyPage, {
    description:
      'API keys you may view, a page at a time: with api-keys:read every key of your tenant (a platform administrator: ' +
      'every key), else the keys you created; optionally only those in one status.',
  })
  apiKeys(@Args() args: ApiKeysArgs, @CurrentActor() actor: Actor): Promise<Page<ApiKey>> {
    return this.service.list(actor, args);
  }

  @Authorized()
  @Query(() => ApiKey, {
    description: 'One API key; its creator and holders of api-keys:read may view it. includeUsageLogs adds the 100 most recent uses.',
  })
  apiKey(@Args() { id, includeUsageLogs }: ApiKeyArgs, @CurrentActor() actor: Actor, @Info() info: GraphQLResolveInfo): Promise<ApiKey> {
    // The selection decides what is read: unasked fields and an unasked usage log are not fetched.
    return this.service.get(actor, id, includeUsageLogs, selectedFieldNames(info));
  }

  @Authorized()
  @Query(() => ApiKeyUsagePage, { description: "An API key's usage log, most recent first, a page at a time; as viewing the key." })
  apiKeyUsageLogs(@Args() args: ApiKeyUsageLogsArgs, @CurrentActor() actor: Actor): Promise<Page<ApiKeyUsage>> {
    return this.service.usageLogs(actor, args);
  }

  @Authorized('api-keys:create')
  @UseMiddleware(Audited('api-keys.create', { targetType: 'ApiKey' }))
  @Mutation(() => ApiKeyWithSecret, {
    description:
      'Create an API key of your tenant, acting with scopes you hold. Answers the record and its secret `key`, ' +
      'shown this once (only a hash of it is stored). Called with an API key, the new key stays within its expiry, ' +
      'rate limit and allowed IPs and origins (403 naming a field given beyond them) and is revoked with it.',
  })
  createApiKey(@Args() args: CreateApiKeyArgs, @CurrentActor() actor: Actor): Promise<ApiKeyWithSecret> {
    return this.service.create(actor, args);
  }

  @Authorized()
  // One record per key revoked: the one named, and each key it created that the revoke took with it (reported below).
  // A dry run changes nothing: no record (skip).
  @UseMiddleware(Audited('api-keys.revoke', { targetType: 'ApiKey', skip: (args) => args['dryRun'] === true }))
  @Mutation(() => ApiKey, {
    description:
      'Revoke an API key for good (nothing re-enables it); its creator and holders of api-keys:revoke may. ' +
      'Every key it created (createdByKey), and theirs, is revoked with it. Revoking again answers the same record. ' +
      'With dryRun: true nothing changes (no audit record): the key as it is, with wouldRevoke listing what the revoke would end.',
  })
  async revokeApiKey(
    @Args() { id, dryRun }: RevokeApiKeyArgs,
    @CurrentActor() actor: Actor,
    @Ctx() context: AppContext,
  ): Promise<ApiKey | ApiKeyDocument> {
    if (dryRun) return this.service.revokeDryRun(actor, id);
    const { key, alsoRevoked } = await this.service.revoke(actor, id);
    reportAlsoChanged(context, alsoRevoked);
    return key;
  }

  @Authorized()
  @UseMiddleware(Audited('api-keys.roll', { targetType: 'ApiKey' }))
  @Mutation(() => ApiKeyWithSecret, {
    description:
      'Give an API key a new secret (same id, keyId and settings), shown this once; the previous one works for ' +
      'gracePeriodSeconds more. Only its creator may, with scopes they still hold (called with an API key: only that key ' +
      'or a key it made, within its limits); anyone else is refused (403; a holder of api-keys:revoke may revoke it). ' +
      'A revoked or expired key is 409.',
  })
  rollApiKey(@Args() { id, gracePeriodSeconds }: RollApiKeyArgs, @CurrentActor() actor: Actor): Promise<ApiKeyWithSecret> {
    return this.service.roll(actor, id, gracePeriodSeconds);
  }

  // Usage over time, from the hourly rollups.

  @Authorized()
  @Query(() => ApiKeyUsageReport, {
    description:
      "An API key's uses over [from, to) in hour or day buckets (UTC), by outcome, every bucket present, oldest first, at most " +
      '1,000; kept USAGE_ROLLUP_RETENTION (default 400 days). As viewing the key.',
  })
  apiKeyUsage(@Args() args: UsageArgs, @CurrentActor() actor: Actor): Promise<ApiKeyUsageReport> {
    return this.service.usage(actor, args);
  }

  @Authorized()
  @Query(() => RateLimitPreview, {
    description: 'From the hourly rollups: the hours and requests of the last days a proposed rate limit would have refused. As viewing the key.',
  })
  apiKeyRateLimitPreview(@Args() args: RateLimitPreviewArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<RateLimitPreview> {
    return this.service.rateLimitPreview(actor, args, context.config.apiKeys.usageRollupRetentionSeconds);
  }

  @Authorized()
  @Query(() => ApiKeyScopeReport, {
    description:
      "From the usage log of the last days: the scopes the key's uses needed, those it holds and never needed, and the " +
      'smallest set that would have served. As viewing the key.',
  })
  apiKeyScopeReport(@Args() args: UsageDaysArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<ApiKeyScopeReport> {
    return this.service.scopeReport(actor, args, context.config.apiKeys.usageRollupRetentionSeconds);
  }

  @Authorized()
  @Query(() => ApiKeyLineage, {
    description:
      'The keys made with this key (createdByKey), and theirs, as a tree; as viewing the key. ' +
      'At most 10 levels and 500 keys (truncated says the tree was cut).',
  })
  apiKeyLineage(@Args() { id }: ApiKeyLineageArgs, @CurrentActor() actor: Actor): Promise<ApiKeyLineageNode> {
    return this.service.lineage(actor, id);
  }

  // Verifying a key for another service.

  @Authorized('api-keys:verify')
  // Not audited: a verification changes nothing; it is a use of the key, recorded as one (usage log, rollups).
  @Mutation(() => ApiKeyVerification, {
    description:
      "Check an API key another service received, as a request made with it would be checked: its state, the IP and origin it came " +
      'from, the scopes it needs, its rate limit. Always answers (code VALID, NOT_FOUND, DISABLED, REVOKED, EXPIRED, FORBIDDEN or ' +
      "RATE_LIMITED); counts as a use of the key. Only your tenant's keys are found (a platform administrator: any).",
  })
  verifyApiKey(@Args() args: VerifyApiKeyArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<ApiKeyVerification> {
    return this.service.verify(actor, args, context.keyVerification);
  }

  @FieldResolver(() => ApiKeyStatus, {
    description: 'active, disabled (paused until enabled), revoked (for good) or expired (expiresAt has passed); computed when read.',
  })
  // Typed by its fields, not the class: type-graphql would copy a class-typed root into a new instance, losing a document's fields.
  status(@Root() key: StatusFields): ApiKeyStatus {
    return apiKeyStatusAt(key, new Date());
  }

  // Managing a key: update, disable, enable.

  @Authorized()
  @UseMiddleware(Audited('api-keys.update', { targetType: 'ApiKey' }))
  @Mutation(() => ApiKey, {
    description:
      'Change some settings of an API key (left out: kept; null: cleared), never its secret; its creator in person and holders ' +
      'of api-keys:update may. The same bounds as creating (403 naming each field beyond them). A revoked key is 409. ' +
      'The change applies from the key\'s next use, on every instance within a second.',
  })
  updateApiKey(@Args() args: UpdateApiKeyArgs, @CurrentActor() actor: Actor): Promise<ApiKeyDocument> {
    return this.service.update(actor, args);
  }

  @Authorized()
  // One record per key paused: the one named, and each key it made that the disable paused with it.
  @UseMiddleware(Audited('api-keys.disable', { targetType: 'ApiKey' }))
  @Mutation(() => ApiKey, {
    description:
      'Pause an API key (status disabled) until enableApiKey; its creator and holders of api-keys:revoke may. ' +
      'The keys it made (createdByKey), and theirs, are paused with it (disabledWith names it). ' +
      'Disabling it again answers the same record (the first disabledAt and reason stay). A revoked key is 409.',
  })
  async disableApiKey(@Args() { id, reason }: DisableApiKeyArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<ApiKeyDocument> {
    const { key, alsoDisabled } = await this.service.disable(actor, id, reason ?? null);
    reportAlsoChanged(context, alsoDisabled);
    return key;
  }

  @Authorized()
  // One record per key resumed: the one named, and each key its disable had paused.
  @UseMiddleware(Audited('api-keys.enable', { targetType: 'ApiKey' }))
  @Mutation(() => ApiKey, {
    description:
      'End the pause of a disabled API key (status active, disabledAt, disabledReason and disabledWith cleared), and of the keys ' +
      'its disable paused with it; as disabling. A revoked or expired key is 409; an enabled one answers unchanged.',
  })
  async enableApiKey(@Args() { id }: IdArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<ApiKeyDocument> {
    const { key, alsoEnabled } = await this.service.enable(actor, id);
    reportAlsoChanged(context, alsoEnabled);
    return key;
  }
}
