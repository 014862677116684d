import os from 'node:os';
import type { CommandHandler } from './types.js';

export const hostInfoCommand: CommandHandler = {
  name: 'hostInfo',
  help: 'facts about the machine the engine runs on',
  handle: () => ({
    system: {
      currentTime: new Date(),
      hostname: os.hostname(),
      cpuAddrSize: 64,
      memSizeMB: Math.round(os.totalmem() / (1024 * 1024)),
      numCores: os.availableParallelism(),
      cpuArch: os.arch(),
      numaEnabled: false,
    },
    os: { type: os.type(), name: os.type(), version: os.release() },
    extra: {},
  }),
};
