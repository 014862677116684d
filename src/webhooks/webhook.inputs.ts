import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsString, IsUrl, MaxLength, ValidateBy } from 'class-validator';
import { ArgsType } from 'type-graphql';
import { ALL_EVENT_TYPES, EVENT_TYPES, isEventType } from '../events/index.js';
import { declaredField, IdArgs, ObjectIdField, PageArgs } from '../shared/index.js';

export const WEBHOOK_LIMITS = {
  urlLength: 2048,
  descriptionLength: 500,
  /** Endpoints per tenant (a platform administrator's: per the platform). */
  perTenant: 20,
} as const;

/** Each entry a type of the event catalogue, or `*` alone (every type). */
function IsEventTypeList(): PropertyDecorator {
  return ValidateBy({
    name: 'eventType',
    validator: {
      validate: (value) =>
        Array.isArray(value) &&
        (value.includes(ALL_EVENT_TYPES) ? value.length === 1 : value.every((type) => typeof type === 'string' && isEventType(type))),
      defaultMessage: () => `each of $property must be an event type of the catalogue (${EVENT_TYPES.join(', ')}), or "*" alone for every type`,
    },
  });
}

/** Every rule of an endpoint's settings, declared once: create and update apply them (shared/declared-field.ts). */
const WebhookField = {
  url: declaredField(
    () => String,
    `Where events are POSTed: an absolute http(s) URL (https in production), up to ${WEBHOOK_LIMITS.urlLength} characters.`,
    IsString(),
    IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: '$property must be an absolute http(s) URL' }),
    MaxLength(WEBHOOK_LIMITS.urlLength),
  ),
  events: declaredField(
    () => [String],
    'Event types to receive (see docs/events.md), each once; ["*"]: every type.',
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(EVENT_TYPES.length),
    ArrayUnique(),
    IsEventTypeList(),
  ),
  enabled: declaredField(() => Boolean, 'false pauses deliveries; true resumes them (and clears why it was disabled).', IsBoolean()),
  description: declaredField(() => String, `What the endpoint is for, up to ${WEBHOOK_LIMITS.descriptionLength} characters.`, IsString(), MaxLength(WEBHOOK_LIMITS.descriptionLength)),
};

/** `createWebhook(url, events, description)` / `POST /webhooks`. */
@ArgsType()
export class CreateWebhookArgs {
  @WebhookField.url() url!: string;
  @WebhookField.events() events!: string[];
  @WebhookField.description('optional') description?: string | null;
}

/** `updateWebhook(id, url, events, description, enabled)` / `PATCH /webhooks/{id}`. */
@ArgsType()
export class UpdateWebhookArgs extends IdArgs {
  @WebhookField.url('unclearable') url?: string;
  @WebhookField.events('unclearable') events?: string[];
  @WebhookField.description('optional') description?: string | null;
  @WebhookField.enabled('unclearable') enabled?: boolean;
}

@ArgsType()
export class WebhookIdArgs extends IdArgs {}

@ArgsType()
export class WebhooksArgs extends PageArgs {}

/** `webhookDeliveries(id, limit, cursor)`. */
@ArgsType()
export class WebhookDeliveriesArgs extends PageArgs {
  @ObjectIdField({ description: 'The webhook endpoint id.' })
  id!: string;
}

/** `retryWebhookDelivery(id, deliveryId)`. */
@ArgsType()
export class RetryWebhookDeliveryArgs extends IdArgs {
  @ObjectIdField({ description: 'The delivery id.' })
  deliveryId!: string;
}
