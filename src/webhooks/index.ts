/** The webhooks area: endpoints (CRUD, test, deliveries, retry) and the delivery worker every instance runs. */
export { WebhookResolver } from './webhook.resolver.js';
export { webhookRestRoutes } from './webhooks.routes.js';
export { webhookReplayedResults } from './webhook-replay.js';
export { Webhook, WebhookDelivery, WebhookDeliveryModel, WebhookModel, DeliveryStatus } from './webhook.model.js';
export { WebhookService, type WebhookSettings } from './webhook.service.js';
export { WebhookRecords } from './webhook.store.js';
export { anchorWebhookFanOut, WebhookWorker, type WebhookDeliveryOptions } from './webhook-worker.js';
export { isForbiddenAddress } from './ssrf-guard.js';
export { newWebhookSecret } from './webhook-secret.js';
