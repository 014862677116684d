import { Args, Authorized, Ctx, Mutation, Query, Resolver, UseMiddleware } from 'type-graphql';
import { Audited } from '../audit/index.js';
import { CurrentActor, type Actor, type AppContext } from '../auth/index.js';
import type { Page } from '../shared/index.js';
import { CreateWebhookArgs, RetryWebhookDeliveryArgs, UpdateWebhookArgs, WebhookDeliveriesArgs, WebhookIdArgs, WebhooksArgs } from './webhook.inputs.js';
import { Webhook, WebhookDelivery } from './webhook.model.js';
import type { WebhookService, WebhookSettings } from './webhook.service.js';
import { CreatedWebhook, DeleteWebhookResult, WebhookDeliveryPage, WebhookPage, WebhookTestResult } from './webhook.types.js';

/** The configuration the rules read, from the request's. */
const settingsOf = ({ config }: AppContext): WebhookSettings => ({
  jwtSecret: config.jwt.secret,
  httpsOnly: config.nodeEnv === 'production' && !config.webhooks.allowPrivate,
});

/** Thin: unpack the arguments and the caller, call the service. */
@Resolver(() => Webhook)
export class WebhookResolver {
  constructor(private readonly hooks: WebhookService) {}

  @Authorized('webhooks:manage')
  @Query(() => WebhookPage, { description: 'Webhook endpoints of your tenant (a platform administrator: of every tenant), a page at a time.' })
  webhooks(@Args() args: WebhooksArgs, @CurrentActor() actor: Actor): Promise<Page<Webhook>> {
    return this.hooks.list(actor, args);
  }

  @Authorized('webhooks:manage')
  @Query(() => Webhook, { description: 'One webhook endpoint.' })
  webhook(@Args() { id }: WebhookIdArgs, @CurrentActor() actor: Actor): Promise<Webhook> {
    return this.hooks.get(actor, id);
  }

  @Authorized('webhooks:manage')
  @UseMiddleware(Audited('webhooks.create', { targetType: 'Webhook' }))
  @Mutation(() => CreatedWebhook, { description: 'Create a webhook endpoint; answers it with its signing secret, shown only here.' })
  createWebhook(@Args() args: CreateWebhookArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<CreatedWebhook> {
    return this.hooks.create(actor, args, settingsOf(context));
  }

  @Authorized('webhooks:manage')
  @UseMiddleware(Audited('webhooks.update', { targetType: 'Webhook' }))
  @Mutation(() => Webhook, { description: 'Change an endpoint\'s url, events, description, or pause/resume it (enabled).' })
  updateWebhook(@Args() args: UpdateWebhookArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<Webhook> {
    return this.hooks.update(actor, args, settingsOf(context));
  }

  @Authorized('webhooks:manage')
  @UseMiddleware(Audited('webhooks.delete', { targetType: 'Webhook', removesTarget: true }))
  @Mutation(() => DeleteWebhookResult, { description: 'Delete an endpoint: it receives nothing more.' })
  deleteWebhook(@Args() { id }: WebhookIdArgs, @CurrentActor() actor: Actor): Promise<DeleteWebhookResult> {
    return this.hooks.delete(actor, id);
  }

  @Authorized('webhooks:manage')
  @UseMiddleware(Audited('webhooks.test-send', { targetType: 'Webhook' }))
  @Mutation(() => WebhookTestResult, { description: 'Send a webhooks.test event to this endpoint only.' })
  testWebhook(@Args() { id }: WebhookIdArgs, @CurrentActor() actor: Actor): Promise<WebhookTestResult> {
    return this.hooks.test(actor, id);
  }

  @Authorized('webhooks:manage')
  @Query(() => WebhookDeliveryPage, { description: 'Deliveries of one endpoint, newest first.' })
  webhookDeliveries(@Args() { id, ...page }: WebhookDeliveriesArgs, @CurrentActor() actor: Actor): Promise<Page<WebhookDelivery>> {
    return this.hooks.deliveries(actor, id, page);
  }

  @Authorized('webhooks:manage')
  @UseMiddleware(Audited('webhooks.delivery-retry', { targetType: 'WebhookDelivery' }))
  @Mutation(() => WebhookDelivery, { description: 'Give a failed delivery one more attempt now; answers the delivery (pending).' })
  retryWebhookDelivery(@Args() { id, deliveryId }: RetryWebhookDeliveryArgs, @CurrentActor() actor: Actor): Promise<WebhookDelivery> {
    return this.hooks.retry(actor, id, deliveryId);
  }
}
