import { mongoError } from '../errors.js';
import type { CommandHandler } from './types.js';

/** replSetGetStatus (`rs.status()`): a standalone is not a replica set member; mongod answers 76. */
export const replSetGetStatusCommand: CommandHandler = {
  name: 'replSetGetStatus',
  help: 'replica set status (a standalone has none)',
  handle() {
    throw mongoError('NoReplicationEnabled', 'not running with --replSet');
  },
};
