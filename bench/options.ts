/**
 * The bench's settings, from flags (`npm run bench -- --rounds 1`) or the
 * environment (BENCH_ROUNDS=1); a flag wins. `--quick` shortens the defaults
 * (1 round of 3 s, 1 s warm-up, 10 s memory run after 5 s of its load) to check that it all works.
 */
export interface BenchOptions {
  /** Parts to run: service (the load scenarios), memory, growth (opt-in), and the engine's own a, b, c, d, e, w. */
  parts: Set<string>;
  rounds: number;
  /** Seconds per scenario per round. */
  seconds: number;
  /** Seconds per scenario of warm-up, before the first round. */
  warmupSeconds: number;
  connections: number;
  /** Seconds of the memory scenario. */
  memorySeconds: number;
  /**
   * Seconds of the same mixed load before the memory scenario samples: a service's heap grows to
   * its working size over the first 40 s or so of that load (bench/README.md), which is not growth.
   */
  memoryWarmupSeconds: number;
  users: number;
  keys: number;
  menus: number;
  /** Where to write the scenarios as JSON; undefined: nowhere. */
  jsonFile?: string;
  /** ping/findOne pairs per round for the engine row. */
  engineIterations: number;
  /** Records of each kind the growth part grows its tenant to (from 1,000). */
  growthRecords: number;
}

export const DEFAULT_PARTS = 'service,memory,a,b,c';

export function readOptions(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return undefined;
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
    return value;
  };
  const quick = argv.includes('--quick') || env.BENCH_QUICK === '1';
  const number = (name: string, envName: string, normal: number, short: number, min = 1): number => {
    const text = flag(name) ?? env[envName];
    if (text === undefined || text === '') return quick ? short : normal;
    const value = Number(text);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name} (${envName}) must be a number >= ${min}, got "${text}"`);
    return value;
  };
  const parts = (flag('only') ?? env.BENCH_ONLY ?? DEFAULT_PARTS).split(',').map((part) => part.trim());
  const known = ['service', 'memory', 'growth', 'a', 'b', 'c', 'd', 'e', 'w'];
  const unknown = parts.filter((part) => !known.includes(part));
  if (unknown.length > 0) throw new Error(`--only takes ${known.join(', ')} (unknown: ${unknown.join(', ')})`);
  return {
    parts: new Set(parts),
    rounds: Math.round(number('rounds', 'BENCH_ROUNDS', 3, 1)),
    seconds: number('duration', 'BENCH_DURATION', 10, 3, 0.5),
    warmupSeconds: number('warmup', 'BENCH_WARMUP', 5, 1, 0),
    connections: Math.round(number('connections', 'BENCH_CONNECTIONS', 50, 50)),
    memorySeconds: number('memory-seconds', 'BENCH_MEMORY_SECONDS', 60, 10, 1),
    memoryWarmupSeconds: number('memory-warmup', 'BENCH_MEMORY_WARMUP', 45, 5, 0),
    users: Math.round(number('users', 'BENCH_USERS', 10_000, 10_000)),
    keys: Math.round(number('keys', 'BENCH_KEYS', 10_000, 10_000)),
    menus: Math.round(number('menus', 'BENCH_MENUS', 1000, 1000)),
    jsonFile: flag('json') ?? env.BENCH_JSON,
    engineIterations: Math.round(number('engine-iterations', 'BENCH_ENGINE_ITERATIONS', 2000, 500, 10)),
    // --quick keeps the full size: a smaller growth is asked for by name, never implied.
    growthRecords: Math.round(number('growth-records', 'BENCH_GROWTH_RECORDS', 1_000_000, 1_000_000, 1000)),
  };
}

/** A URI with its database path replaced by `dbName` (keeps hosts and options; also multi-host URIs). */
export function withDatabase(uri: string, dbName: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/.exec(uri);
  if (!match) throw new Error('MONGODB_URI must look like mongodb://host[:port][/db][?options]');
  const [, hosts, dbPath, query = ''] = match;
  // The driver authenticates against the URI's database unless authSource says otherwise: keep it.
  const original = dbPath?.slice(1);
  const authSource = original && !/[?&]authSource=/.test(query) ? `${query ? '&' : '?'}authSource=${original}` : '';
  return `${hosts}/${dbName}${query}${authSource}`;
}
