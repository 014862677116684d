import { Field, ID, ObjectType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { Webhook, WebhookDelivery } from './webhook.model.js';

@ObjectType({ description: 'A page of webhook endpoints.' })
export class WebhookPage extends Paginated(Webhook) {}

@ObjectType({ description: 'A page of deliveries of one endpoint, newest first.' })
export class WebhookDeliveryPage extends Paginated(WebhookDelivery) {}

/** What createWebhook answers: the endpoint and, once, its signing secret. */
@ObjectType({ description: 'A new webhook endpoint and its signing secret, shown only here.' })
export class CreatedWebhook extends Webhook {
  @Field(() => String, {
    nullable: true,
    description: 'The signing secret (whsec_...), shown once; null when the answer is replayed for a repeated Idempotency-Key (see detail).',
  })
  secret!: string | null;
}

@ObjectType({ description: 'The outcome of deleting a webhook endpoint.' })
export class DeleteWebhookResult {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Always true: the endpoint is gone and receives nothing more.' })
  deleted!: boolean;

  /** For the audit trail; not answered. */
  tenant_id?: string | null;
}

@ObjectType({ description: 'The test event sent to one endpoint.' })
export class WebhookTestResult {
  /** The webhook id (the audit trail's target). */
  @Field(() => ID, { description: 'The webhook endpoint.' })
  id!: string;

  @Field(() => ID, { description: 'The webhooks.test event (sent as webhook-id).' })
  eventId!: string;

  @Field(() => WebhookDelivery, { description: 'Its delivery; follow it in webhookDeliveries.' })
  delivery!: WebhookDelivery;

  tenant_id?: string | null;
}
