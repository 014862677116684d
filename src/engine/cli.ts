import { parseArgs } from 'node:util';
import { startEngine, type StartEngineOptions } from './index.js';

/**
 * `npm run engine -- --port 27017 --dbpath ./data [--host 127.0.0.1] [--in-memory]`
 * Runs the engine as a standalone server: prints one line with its URI,
 * serves until SIGTERM/SIGINT, then closes connections, flushes storage and
 * exits 0.
 */
const USAGE = 'usage: engine --dbpath <dir> | --in-memory  [--port <0-65535>] [--host <address>]';

function parseOptions(argv: string[]): StartEngineOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '27017' },
      host: { type: 'string', default: '127.0.0.1' },
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
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) problems.push(`--port must be an integer from 0 to 65535, got '${values.port}'`);
  if (values.host === '') problems.push('--host must not be empty');
  if (values['in-memory'] && values.dbpath !== undefined) problems.push('give either --dbpath or --in-memory, not both');
  if (!values['in-memory'] && (values.dbpath === undefined || values.dbpath === '')) problems.push('--dbpath <dir> is required (or --in-memory)');
  if (problems.length > 0) throw new UsageError(problems);
  const common = { host: values.host, port };
  return values['in-memory'] ? { ...common, inMemory: true } : { ...common, dbPath: values.dbpath! };
}

class UsageError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

async function main(): Promise<void> {
  let options: StartEngineOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    const problems = err instanceof UsageError ? err.problems : [(err as Error).message];
    process.stderr.write(`${problems.map((p) => `engine: ${p}`).join('\n')}\n${USAGE}\n`);
    process.exit(2);
  }
  const engine = await startEngine(options);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`engine: ${signal} received, shutting down\n`);
    engine.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`engine: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  // Printed only once the signal handlers are in place: whoever waits for
  // this line may stop us right away.
  const where = 'dbPath' in options ? `data in ${options.dbPath}` : 'in memory';
  process.stdout.write(`engine listening on ${engine.uri} (${where})\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`engine: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
