import type { ReturnModelType } from '@typegoose/typegoose';
import type { ObjectId } from 'mongodb';
import { PasswordTicket, PasswordTicketModel } from './password-ticket.model.js';

/** A live ticket as redeem reads it: whose it is, who made it, under which token version of the user. */
export interface LiveTicket {
  _id: ObjectId;
  userId: string;
  tenant_id: string | null;
  createdBy: string;
  tokenVersion: number;
}

/** Live: not past `expiresAt` by the database's clock (the TTL sweep may not have run yet). */
const LIVE = { $expr: { $gt: ['$expiresAt', '$$NOW'] } };
const LIVE_FIELDS = { projection: { userId: 1, tenant_id: 1, createdBy: 1, tokenVersion: 1 } };

/** The reads and writes of password tickets; the rules are PasswordTicketService's. */
export class PasswordTicketRecords {
  constructor(private readonly model: ReturnModelType<typeof PasswordTicket> = PasswordTicketModel) {}

  async create(ticket: Pick<PasswordTicket, 'hash' | 'userId' | 'tenant_id' | 'expiresAt' | 'createdBy' | 'tokenVersion'>): Promise<void> {
    await this.model.create(ticket);
  }

  /** The live ticket whose hash this is; null when unknown, spent or expired. */
  findLive(hash: string): Promise<LiveTicket | null> {
    return this.model.collection.findOne({ hash, ...LIVE }, LIVE_FIELDS) as Promise<LiveTicket | null>;
  }

  /** Spends the ticket: one conditional delete, so of concurrent redeems exactly one gets it; null for the others and once expired. */
  spend(id: ObjectId): Promise<LiveTicket | null> {
    return this.model.collection.findOneAndDelete({ _id: id, ...LIVE }, LIVE_FIELDS) as Promise<LiveTicket | null>;
  }

  /** Drops every other ticket of the user: their password was just set. */
  async dropAllOf(userId: string): Promise<void> {
    await this.model.collection.deleteMany({ userId });
  }
}
