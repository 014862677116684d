import { serverFacts, storageEngineName } from '../standalone/index.js';
import type { CommandHandler } from './types.js';

export const buildInfoCommand: CommandHandler = {
  name: 'buildInfo',
  aliases: ['buildinfo'],
  help: 'the version this server claims (7.0) and its build facts',
  handle: (_body, ctx) => ({
    version: ctx.engine.version,
    gitVersion: serverFacts.gitVersion,
    versionArray: [...serverFacts.versionArray],
    modules: [],
    allocator: 'system',
    javascriptEngine: 'none',
    sysInfo: 'deprecated',
    bits: 64,
    debug: false,
    maxBsonObjectSize: serverFacts.maxBsonObjectSize,
    storageEngines: [storageEngineName(ctx.engine.storage.durable)],
    openssl: { running: 'disabled' },
    buildEnvironment: {},
  }),
};
