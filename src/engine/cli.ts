import { parseArgs } from 'node:util';
import { startEngine, type EngineOptions, type RunningEngine } from './index.js';

/**
 * `npm run engine -- --dbpath ./data [--port 27017] [--host 127.0.0.1] | [--socket | --socket-path <file.sock>]`
 * Runs the engine as a standalone server: prints one line with its URI,
 * serves until SIGTERM/SIGINT, then closes connections, flushes storage and
 * exits 0. TCP on loopback by default, so tools and several instances can
 * share it; `--socket` keeps it to this user. Either way it prints what it is
 * exposed to: it has no authentication.
 */
const USAGE =
  'usage: engine --dbpath <dir> | --in-memory  [--port <0-65535>] [--host <address>] | [--socket] [--socket-path <file.sock>]';
const DEFAULT_PORT = '27017';
const DEFAULT_HOST = '127.0.0.1';

function parseOptions(argv: string[]): EngineOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      // No defaults here: giving --port or --host with --socket is a mistake to report.
      port: { type: 'string' },
      host: { type: 'string' },
      socket: { type: 'boolean', default: false },
      'socket-path': { type: 'string' },
      dbpath: { type: 'string' },
      'in-memory': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const problems: string[] = [];
  const portText = values.port ?? DEFAULT_PORT;
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) problems.push(`--port must be an integer from 0 to 65535, got '${portText}'`);
  if (values.host === '') problems.push('--host must not be empty');
  const socketPath = values['socket-path'];
  if (socketPath === '') problems.push('--socket-path must not be empty');
  const onSocket = values.socket || socketPath !== undefined;
  if (onSocket && (values.port !== undefined || values.host !== undefined)) {
    problems.push('--socket and --socket-path listen on a unix socket: give no --port or --host with them');
  }
  if (values['in-memory'] && values.dbpath !== undefined) problems.push('give either --dbpath or --in-memory, not both');
  if (!values['in-memory'] && (values.dbpath === undefined || values.dbpath === '')) problems.push('--dbpath <dir> is required (or --in-memory)');
  if (problems.length > 0) throw new UsageError(problems);
  const storage = values['in-memory'] ? { inMemory: true as const } : { dbPath: values.dbpath! };
  if (onSocket) return { ...storage, socket: socketPath === undefined ? {} : { path: socketPath } };
  return { ...storage, host: values.host ?? DEFAULT_HOST, port };
}

/** The engine has no authentication: say plainly who can read and write its data. */
function exposureNote(engine: RunningEngine): string {
  if (engine.socketPath !== undefined) {
    return (
      `engine: no authentication; listening only on the unix socket ${engine.socketPath} (mode 600 in a directory of mode 700): ` +
      'only this user (and root) can connect, and every process of this user can read and write all data'
    );
  }
  const loopback = /^(127\.|::1$|localhost$)/.test(engine.host);
  const who = loopback ? 'any process of any user on this machine' : `anyone who can reach ${engine.host} over the network`;
  return (
    `engine: WARNING: no authentication; ${who} can connect to port ${engine.port} and read and write all data ` +
    '(password hashes included). Use --socket to allow this user only.'
  );
}

class UsageError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

async function main(): Promise<void> {
  let options: EngineOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    const problems = err instanceof UsageError ? err.problems : [(err as Error).message];
    process.stderr.write(`${problems.map((p) => `engine: ${p}`).join('\n')}\n${USAGE}\n`);
    process.exit(2);
  }
  const engine = await startEngine(options);

  let stopping = false;
  const stop = (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`engine: ${reason}, shutting down\n`);
    engine.close().then(
      () => process.exit(exitCode),
      (err: unknown) => {
        process.stderr.write(`engine: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM received'));
  process.on('SIGINT', () => stop('SIGINT received'));
  // The data files can no longer be written (a full disk; the engine has logged why): read-only
  // until the disk has space again, then exit 1, as mongod does on a failed journal write, for a
  // restart that replays the log and takes writes again.
  void engine.failed
    .then(() => engine.whenSpaceIsBack())
    .then(() => stop(engine.waitsForSpace() ? 'the data directory has space again after a failed write' : 'writing the data files failed', 1));

  // Printed only once the signal handlers are in place: whoever waits for
  // this line may stop us right away.
  const where = 'dbPath' in options ? `data in ${options.dbPath}` : 'in memory';
  process.stderr.write(`${exposureNote(engine)}\n`);
  process.stdout.write(`engine listening on ${engine.uri} (${where})\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`engine: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
