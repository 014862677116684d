import { transactionsRefused } from '../standalone/index.js';
import type { CommandHandler } from './types.js';

export const abortTransactionCommand: CommandHandler = {
  name: 'abortTransaction',
  help: 'refused: transactions need a replica set (we are a standalone)',
  handle() {
    throw transactionsRefused();
  },
};
