import { tenantScope, type Actor } from '../auth/index.js';
import { AppError, errors } from '../errors/index.js';
import type { EventLog } from '../events/index.js';
import type { Page } from '../shared/index.js';
import type { CreateWebhookArgs, UpdateWebhookArgs } from './webhook.inputs.js';
import { WEBHOOK_LIMITS } from './webhook.inputs.js';
import type { Webhook, WebhookDelivery } from './webhook.model.js';
import { newWebhookSecret, sealSecret } from './webhook-secret.js';
import type { WebhookChanges, WebhookRecords } from './webhook.store.js';
import type { CreatedWebhook, DeleteWebhookResult, WebhookTestResult } from './webhook.types.js';
import { eventPayload, TEST_EVENT_TYPE } from './webhook-worker.js';

const notFound = (id: string) => errors.notFound('Webhook', id);

/** What the rules need of the configuration (the request context's). */
export interface WebhookSettings {
  /** Seals the signing secret (webhook-secret.ts). */
  jwtSecret: string;
  /** Production without WEBHOOK_ALLOW_PRIVATE: an endpoint must be https. */
  httpsOnly: boolean;
}

/**
 * Webhook endpoint rules: `webhooks:manage`, tenant-scoped as every read
 * (another tenant's endpoint is 404), at most 20 per tenant. Deliveries
 * are webhook-worker.ts's; this queues the test event and manual retries.
 */
export class WebhookService {
  constructor(
    private readonly hooks: WebhookRecords,
    private readonly eventLog: EventLog,
  ) {}

  list(actor: Actor, page: { limit: number; cursor?: string | null }): Promise<Page<Webhook>> {
    return this.hooks.list(tenantScope(actor), page);
  }

  async get(actor: Actor, id: string): Promise<Webhook> {
    return (await this.hooks.find(tenantScope(actor), id)) ?? throwNotFound(id);
  }

  /**
   * The limit holds across instances: the new endpoint is written, then
   * counted with the others; past the limit it is removed again (of two
   * racing creates both may be refused, never both kept).
   */
  async create(actor: Actor, args: CreateWebhookArgs, settings: WebhookSettings): Promise<CreatedWebhook> {
    checkHttps(args.url, settings);
    const tenantId = tenantScope(actor).tenant_id ?? null;
    if ((await this.hooks.count(tenantId)) >= WEBHOOK_LIMITS.perTenant) throw tooMany();
    const secret = newWebhookSecret();
    const hook = await this.hooks.create({
      url: args.url,
      events: args.events,
      description: args.description ?? null,
      tenant_id: tenantId,
      createdBy: actor.userId,
      secretSealed: sealSecret(settings.jwtSecret, secret),
    });
    if ((await this.hooks.count(tenantId)) > WEBHOOK_LIMITS.perTenant) {
      await this.hooks.remove({}, hook.id);
      throw tooMany();
    }
    return { ...hook, secret };
  }

  async update(actor: Actor, args: UpdateWebhookArgs, settings: WebhookSettings): Promise<Webhook> {
    if (args.url !== undefined) checkHttps(args.url, settings);
    const changes: WebhookChanges = {};
    if (args.url !== undefined) changes.url = args.url;
    if (args.events !== undefined) changes.events = args.events;
    if (args.description !== undefined) changes.description = args.description;
    if (args.enabled === true) Object.assign(changes, { enabled: true, disabledReason: null, disabledAt: null, failingSince: null });
    if (args.enabled === false) Object.assign(changes, { enabled: false, disabledReason: 'disabled by updateWebhook', disabledAt: new Date() });
    const hook = (await this.hooks.update(tenantScope(actor), args.id, changes)) ?? throwNotFound(args.id);
    if (args.enabled === true) await this.hooks.releaseHeld(hook.id);
    return hook;
  }

  async delete(actor: Actor, id: string): Promise<DeleteWebhookResult> {
    const hook = (await this.hooks.remove(tenantScope(actor), id)) ?? throwNotFound(id);
    return { id, deleted: true, tenant_id: hook.tenant_id };
  }

  /** A `webhooks.test` event, delivered to this endpoint only (the fan-out skips the type). */
  async test(actor: Actor, id: string): Promise<WebhookTestResult> {
    const hook = await this.get(actor, id);
    const actorRef = actor.via.kind === 'api-key' ? { type: 'apiKey', id: actor.via.apiKeyId } : { type: 'user', id: actor.userId };
    const target = { type: 'Webhook', id: hook.id };
    const data = { message: 'A test event sent by testWebhook.' };
    const appended = await this.eventLog.append({ type: TEST_EVENT_TYPE, tenant_id: hook.tenant_id, actor: actorRef, target, data });
    const eventId = appended!.id;
    const payload = eventPayload({ id: eventId, type: TEST_EVENT_TYPE, tenant_id: hook.tenant_id, occurredAt: new Date(), actor: actorRef, target, data });
    const delivery = await this.hooks.addDelivery({ webhookId: hook.id, eventId, type: TEST_EVENT_TYPE, tenant_id: hook.tenant_id, payload });
    return { id: hook.id, eventId, delivery, tenant_id: hook.tenant_id };
  }

  async deliveries(actor: Actor, id: string, page: { limit: number; cursor?: string | null }): Promise<Page<WebhookDelivery>> {
    await this.get(actor, id);
    return this.hooks.deliveries(id, page);
  }

  /** A failed delivery gets one more attempt now; a pending or delivered one is 409. */
  async retry(actor: Actor, id: string, deliveryId: string): Promise<WebhookDelivery> {
    await this.get(actor, id);
    const queued = await this.hooks.requeueFailed(id, deliveryId);
    if (queued) return queued;
    const delivery = await this.hooks.findDelivery(id, deliveryId);
    if (!delivery) throw errors.notFound('Webhook delivery', deliveryId);
    const message = `Only a failed delivery can be retried; this one is ${delivery.status}`;
    throw new AppError('CONFLICT', message, { errors: [{ field: 'deliveryId', rule: 'retryFailedOnly', message }] });
  }
}

function throwNotFound(id: string): never {
  throw notFound(id);
}

function tooMany() {
  return errors.invalidField('url', 'maxEndpoints', `At most ${WEBHOOK_LIMITS.perTenant} webhook endpoints per tenant; delete one first`);
}

function checkHttps(url: string, settings: WebhookSettings): void {
  if (settings.httpsOnly && !url.toLowerCase().startsWith('https://')) {
    throw errors.invalidField('url', 'https', 'url must be an https URL in production (WEBHOOK_ALLOW_PRIVATE=true also allows http)');
  }
}
