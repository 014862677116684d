import { mongoError, type MongoCommandError } from '../errors.js';

/**
 * We behave like a standalone mongod, which refuses transaction numbers
 * (multi-document transactions and retryable writes) with this code and message.
 */
export function transactionsRefused(): MongoCommandError {
  return mongoError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
}

/** A command carries a transaction number or transaction flags. */
export function hasTransactionFields(body: Record<string, unknown>): boolean {
  return body.txnNumber !== undefined || body.startTransaction !== undefined || body.autocommit !== undefined;
}
