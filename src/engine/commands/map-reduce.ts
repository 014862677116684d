import { mongoError } from '../errors.js';
import type { CommandHandler } from './types.js';

/**
 * mapReduce: its map and reduce are server-side JavaScript, which the engine
 * does not run; it answers what a mongod started with
 * `security.javascriptEnabled: false` answers when the map's `emit` runs.
 */
export const mapReduceCommand: CommandHandler = {
  name: 'mapReduce',
  aliases: ['mapreduce'],
  help: 'refused: server-side JavaScript is disabled (use an aggregation pipeline)',
  handle() {
    throw mongoError('Location31246', 'Cannot run server-side javascript without the javascript engine enabled');
  },
};
