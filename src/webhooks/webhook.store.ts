import type { Types } from 'mongoose';
import type { TenantFilter } from '../auth/index.js';
import { collectionPages, findPage, orStale, storedVersion, toObjectId, versionCondition, type Page } from '../shared/index.js';
import { DeliveryStatus, HELD, Webhook, WebhookDelivery, WebhookDeliveryModel, WebhookModel } from './webhook.model.js';

type Stored<T> = Omit<T, 'id'> & { _id: Types.ObjectId };
const answered = <T>(stored: Stored<T>): T => ({ ...stored, id: stored._id.toHexString() }) as unknown as T;
const SECRET_HIDDEN = { projection: { secretSealed: 0 } };

export type NewWebhook = Pick<Webhook, 'url' | 'events' | 'description' | 'tenant_id' | 'createdBy' | 'secretSealed'>;
export type WebhookChanges = Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'enabled' | 'disabledReason' | 'disabledAt' | 'failingSince'>>;

/** The reads and writes of webhook endpoints and their deliveries; every method takes the tenant scope the service gave. */
export class WebhookRecords {
  /** EVENT_RETENTION in ms: how long a delivery is kept after it was due (the TTL index on expireAt). */
  private readonly retentionMs: number;

  constructor(retentionSeconds: number) {
    this.retentionMs = retentionSeconds * 1000;
  }

  private readonly hookPages = collectionPages<Stored<Webhook>>(WebhookModel);
  private readonly deliveryPages = collectionPages<Stored<WebhookDelivery>>(WebhookDeliveryModel);

  async list(scope: TenantFilter, page: { limit: number; cursor?: string | null }): Promise<Page<Webhook>> {
    const found = await findPage(this.hookPages, { ...scope }, page);
    return { ...found, items: found.items.map(({ secretSealed: _, ...hook }) => answered<Webhook>(hook as Stored<Webhook>)) };
  }

  async find(scope: TenantFilter, id: string): Promise<Webhook | null> {
    const hook = (await WebhookModel.collection.findOne({ _id: toObjectId(id), ...scope }, SECRET_HIDDEN)) as Stored<Webhook> | null;
    return hook && answered<Webhook>(hook);
  }

  async create(hook: NewWebhook): Promise<Webhook> {
    const made = await WebhookModel.create({ ...hook, enabled: true });
    const { secretSealed: _, ...shown } = made.toObject() as Stored<Webhook>;
    return answered<Webhook>(shown as Stored<Webhook>);
  }

  /** How many endpoints the tenant has (tenant_id null: the platform's own). */
  count(tenantId: string | null): Promise<number> {
    return WebhookModel.countDocuments({ tenant_id: tenantId });
  }

  /** Under an If-Match, only the version read (a stale one: 412, shared/write-precondition.ts). */
  async remove(scope: TenantFilter, id: string): Promise<Webhook | null> {
    const hook = (await WebhookModel.collection.findOneAndDelete({ _id: toObjectId(id), ...scope, ...versionCondition() }, SECRET_HIDDEN)) as Stored<Webhook> | null;
    const written = await orStale(hook, () => this.version(scope, id));
    return written && answered<Webhook>(written);
  }

  private version(scope: TenantFilter, id: string) {
    return storedVersion(WebhookModel.collection, { _id: toObjectId(id), ...scope });
  }

  async update(scope: TenantFilter, id: string, changes: WebhookChanges): Promise<Webhook | null> {
    const hook = (await WebhookModel.collection.findOneAndUpdate(
      { _id: toObjectId(id), ...scope, ...versionCondition() },
      { $set: { ...changes, updatedAt: new Date() } },
      { returnDocument: 'after', ...SECRET_HIDDEN },
    )) as Stored<Webhook> | null;
    const written = await orStale(hook, () => this.version(scope, id));
    return written && answered<Webhook>(written);
  }

  async deliveries(webhookId: string, page: { limit: number; cursor?: string | null }): Promise<Page<WebhookDelivery>> {
    const found = await findPage(this.deliveryPages, { webhookId }, page, { order: 'desc' });
    return { ...found, items: found.items.map((delivery) => answered<WebhookDelivery>(delivery)) };
  }

  async addDelivery(delivery: Pick<WebhookDelivery, 'webhookId' | 'eventId' | 'type' | 'tenant_id' | 'payload'>): Promise<WebhookDelivery> {
    const now = new Date();
    const made = await WebhookDeliveryModel.create({ ...delivery, status: DeliveryStatus.pending, attempts: 0, nextAttemptAt: now, expireAt: this.keptUntil(now) });
    return answered<WebhookDelivery>(made.toObject() as Stored<WebhookDelivery>);
  }

  /** A failed delivery of the endpoint made due again for one more attempt; null when there is no failed one of that id. */
  async requeueFailed(webhookId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const delivery = (await WebhookDeliveryModel.collection.findOneAndUpdate(
      { _id: toObjectId(deliveryId), webhookId, status: DeliveryStatus.failed },
      { $set: { status: DeliveryStatus.pending, nextAttemptAt: new Date(), manualRetry: true, leaseUntil: new Date(0), updatedAt: new Date(), expireAt: this.keptUntil(new Date()) } },
      { returnDocument: 'after' },
    )) as Stored<WebhookDelivery> | null;
    return delivery && answered<WebhookDelivery>(delivery);
  }

  /** The deliveries held while the endpoint was disabled become due now (the worker holds them: webhook-worker.ts). */
  async releaseHeld(webhookId: string): Promise<void> {
    await WebhookDeliveryModel.collection.updateMany({ webhookId, status: DeliveryStatus.pending, nextAttemptAt: null }, [
      { $set: { nextAttemptAt: '$$NOW', error: { $cond: [{ $eq: ['$error', HELD] }, null, '$error'] }, updatedAt: '$$NOW' } },
      { $set: { expireAt: { $add: ['$$NOW', this.retentionMs] } } },
    ]);
  }

  private keptUntil(due: Date): Date {
    return new Date(due.getTime() + this.retentionMs);
  }

  async findDelivery(webhookId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const delivery = (await WebhookDeliveryModel.collection.findOne({ _id: toObjectId(deliveryId), webhookId })) as Stored<WebhookDelivery> | null;
    return delivery && answered<WebhookDelivery>(delivery);
  }
}
