import { afterAll, beforeAll } from 'vitest';
import { startTestApp, type TestApp, type TestAppOptions, type TestUser } from '../support/test-app.js';

/** The fields a webhook answer is read with on GraphQL. */
export const WEBHOOK_FIELDS = 'id url events description enabled disabledReason disabledAt failingSince tenant_id createdBy createdAt updatedAt';
export const DELIVERY_FIELDS = 'id webhookId eventId type attempts status responseStatus durationMs nextAttemptAt lastAttemptAt error';

export interface WebhookWorld {
  app: TestApp;
  admin: TestUser;
  otherAdmin: TestUser;
  member: TestUser;
  platform: TestUser;
}

/** One app per file, with a tenant administrator, another tenant's, a member and a platform administrator. */
export function useWebhookApp(options: TestAppOptions = {}): WebhookWorld {
  const world = {} as WebhookWorld;
  beforeAll(async () => {
    world.app = await startTestApp(options);
    world.admin = await world.app.createUser({ tenantId: 'acme' });
    world.otherAdmin = await world.app.createUser({ tenantId: 'globex' });
    world.member = await world.app.createUser({ tenantId: 'acme', roles: ['member'] });
    world.platform = await world.app.createUser({ tenantId: null });
  });
  afterAll(async () => world.app?.close());
  return world;
}

/** Creates an endpoint over REST; answers it with its secret. */
export async function makeWebhook(app: TestApp, user: TestUser, body: Record<string, unknown>): Promise<{ id: string; secret: string } & Record<string, any>> {
  const answer = await app.rest('POST', '/webhooks', { token: user.token, body });
  if (answer.status !== 201) throw new Error(`createWebhook answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}
