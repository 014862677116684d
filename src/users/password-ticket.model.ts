import { getModelForClass, index, modelOptions, prop } from '@typegoose/typegoose';

export const PASSWORD_TICKET_COLLECTION = 'passwordtickets';

/**
 * A one-time password ticket (createPasswordTicket): only the SHA-256 of the
 * ticket is kept, never the ticket. Redeeming deletes it in one conditional
 * write; a TTL index removes it once `expiresAt` has passed (the engine and
 * MongoDB sweep within a minute or so: redeem also checks the time itself).
 * Not a GraphQL type: nothing of it is answered but the ticket, once.
 */
@index({ hash: 1 }, { unique: true })
@index({ expiresAt: 1 }, { expireAfterSeconds: 0 })
@index({ userId: 1 })
@modelOptions({ schemaOptions: { collection: PASSWORD_TICKET_COLLECTION, timestamps: { createdAt: true, updatedAt: false } } })
export class PasswordTicket {
  /** SHA-256 (hex) of the ticket. */
  @prop({ required: true })
  hash!: string;

  /** The user whose password it sets. */
  @prop({ required: true })
  userId!: string;

  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  @prop({ required: true })
  expiresAt!: Date;

  /** Who made it (for an API key: its creator): redeem asks that they still may. */
  @prop({ required: true })
  createdBy!: string;

  /** The user's tokenVersion when it was made: any end of their tokens since (a password change, a disable) spends it. */
  @prop({ required: true })
  tokenVersion!: number;
}

export const PasswordTicketModel = getModelForClass(PasswordTicket);
