import { getModelForClass, index, modelOptions, prop } from '@typegoose/typegoose';

/**
 * One stream's hold on one of its credential's slots (`<credential>#<n>`,
 * n below the limit): the limit holds across instances because a slot is
 * one document, and a taken one refuses a second holder by its `_id`.
 */
@index({ instance: 1 })
@index({ expiresAt: 1 }, { expireAfterSeconds: 0 })
@modelOptions({ schemaOptions: { collection: 'subscriptionslots', versionKey: false } })
export class SubscriptionSlot {
  @prop({ required: true })
  _id!: string;

  /** The instance whose stream holds it: it renews the leases of all its streams at once. */
  @prop({ required: true })
  instance!: string;

  /** The stream holding it (its release removes only its own hold). */
  @prop({ required: true })
  holder!: string;

  /** The lease, by the database's clock: a slot of an instance that died frees itself then. */
  @prop({ required: true })
  expiresAt!: Date;
}

export const SubscriptionSlotModel = getModelForClass(SubscriptionSlot);
