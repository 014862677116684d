import { abortTransactionCommand } from './abort-transaction.js';
import { aggregateCommand } from './aggregate.js';
import { buildInfoCommand } from './build-info.js';
import { cloneCollectionAsCappedCommand, convertToCappedCommand } from './capped-commands.js';
import { collModCommand } from './coll-mod.js';
import { collStatsCommand } from './coll-stats.js';
import { commitTransactionCommand } from './commit-transaction.js';
import { compactCommand } from './compact.js';
import { connectionStatusCommand } from './connection-status.js';
import { countCommand } from './count.js';
import { createBackupCommand } from './create-backup.js';
import { createCommand } from './create.js';
import { createIndexesCommand } from './create-indexes.js';
import { currentOpCommand, killOpCommand } from './current-op.js';
import { dataSizeCommand } from './data-size.js';
import { dbStatsCommand } from './db-stats.js';
import { deleteCommand } from './delete.js';
import { distinctCommand } from './distinct.js';
import { dropCommand } from './drop.js';
import { dropDatabaseCommand } from './drop-database.js';
import { dropIndexesCommand } from './drop-indexes.js';
import { endSessionsCommand } from './end-sessions.js';
import { createExplainCommand } from './explain.js';
import { findCommand } from './find.js';
import { findAndModifyCommand } from './find-and-modify.js';
import { fsyncCommand, fsyncUnlockCommand } from './fsync.js';
import { getCmdLineOptsCommand } from './get-cmd-line-opts.js';
import { getLogCommand } from './get-log.js';
import { getMoreCommand } from './get-more.js';
import { getParameterCommand, setParameterCommand } from './get-parameter.js';
import { helloCommand } from './hello.js';
import { hostInfoCommand } from './host-info.js';
import { insertCommand } from './insert.js';
import { killAllSessionsCommand } from './kill-all-sessions.js';
import { killCursorsCommand } from './kill-cursors.js';
import { killSessionsCommand } from './kill-sessions.js';
import { listCollectionsCommand } from './list-collections.js';
import { createListCommandsCommand } from './list-commands.js';
import { listDatabasesCommand } from './list-databases.js';
import { listIndexesCommand } from './list-indexes.js';
import { mapReduceCommand } from './map-reduce.js';
import { pingCommand } from './ping.js';
import { planCacheClearCommand } from './plan-cache.js';
import { profileCommand } from './profile.js';
import { reIndexCommand } from './re-index.js';
import { refreshSessionsCommand } from './refresh-sessions.js';
import { renameCollectionCommand } from './rename-collection.js';
import { replSetGetStatusCommand } from './repl-set-get-status.js';
import { serverStatusCommand } from './server-status.js';
import type { CommandHandler } from './types.js';
import { updateCommand } from './update.js';
import { rolesInfoCommand, userAdminCommands, usersInfoCommand } from './users-info.js';
import { validateCommand } from './validate.js';
import { whatsmyuriCommand } from './whatsmyuri.js';

/**
 * Every wire command the engine knows, in alphabetical order (FerretDB's
 * table): one import and one row per command file. The dispatcher looks a
 * command up by the first key of its body, case-sensitively, as mongod does;
 * `aliases` carry the other accepted spellings (isMaster/ismaster).
 */
// explain and listCommands need the table itself: they get it through these closures.
const explainCommand = createExplainCommand((name) => lookupCommand(name) !== undefined);
const listCommandsCommand = createListCommandsCommand(() => commandTable);

export const commandTable: readonly CommandHandler[] = [
  abortTransactionCommand,
  aggregateCommand,
  buildInfoCommand,
  cloneCollectionAsCappedCommand,
  collModCommand,
  collStatsCommand,
  commitTransactionCommand,
  compactCommand,
  connectionStatusCommand,
  convertToCappedCommand,
  countCommand,
  createCommand,
  createBackupCommand,
  createIndexesCommand,
  currentOpCommand,
  dataSizeCommand,
  dbStatsCommand,
  deleteCommand,
  distinctCommand,
  dropCommand,
  dropDatabaseCommand,
  dropIndexesCommand,
  endSessionsCommand,
  explainCommand,
  findAndModifyCommand,
  findCommand,
  fsyncCommand,
  fsyncUnlockCommand,
  getCmdLineOptsCommand,
  getLogCommand,
  getMoreCommand,
  getParameterCommand,
  helloCommand,
  hostInfoCommand,
  insertCommand,
  killAllSessionsCommand,
  killCursorsCommand,
  killOpCommand,
  killSessionsCommand,
  listCollectionsCommand,
  listCommandsCommand,
  listDatabasesCommand,
  listIndexesCommand,
  mapReduceCommand,
  pingCommand,
  planCacheClearCommand,
  profileCommand,
  refreshSessionsCommand,
  reIndexCommand,
  renameCollectionCommand,
  replSetGetStatusCommand,
  rolesInfoCommand,
  serverStatusCommand,
  setParameterCommand,
  updateCommand,
  usersInfoCommand,
  validateCommand,
  whatsmyuriCommand,
  ...userAdminCommands,
];

const byName = new Map<string, CommandHandler>();
for (const handler of commandTable) {
  for (const name of [handler.name, ...(handler.aliases ?? [])]) {
    if (byName.has(name)) throw new Error(`command '${name}' is registered twice`);
    byName.set(name, handler);
  }
}

/** The handler registered under `name` (canonical name or alias), if any. */
export function lookupCommand(name: string): CommandHandler | undefined {
  return byName.get(name);
}
