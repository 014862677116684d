import type { RestRoutes } from '../http/index.js';

/** REST shapes of the webhook operations, relative to /api/v1 (contract "Operations on both surfaces"). */
export const webhookRestRoutes = {
  'Query.webhooks': { method: 'GET', path: '/webhooks', tags: ['webhooks'] },
  'Query.webhook': { method: 'GET', path: '/webhooks/:id', tags: ['webhooks'] },
  'Mutation.createWebhook': { method: 'POST', path: '/webhooks', responseStatus: 201, tags: ['webhooks'] },
  'Mutation.updateWebhook': { method: 'PATCH', path: '/webhooks/:id', tags: ['webhooks'] },
  'Mutation.deleteWebhook': { method: 'DELETE', path: '/webhooks/:id', tags: ['webhooks'] },
  'Mutation.testWebhook': { method: 'POST', path: '/webhooks/:id/test', tags: ['webhooks'] },
  'Query.webhookDeliveries': { method: 'GET', path: '/webhooks/:id/deliveries', tags: ['webhooks'] },
  'Mutation.retryWebhookDelivery': { method: 'POST', path: '/webhooks/:id/deliveries/:deliveryId/retry', tags: ['webhooks'] },
} satisfies RestRoutes;
