import { DEFAULT_DB_NAME } from '../src/database.js';
import type { BenchOptions } from './options.js';
import { freePort, SERVICE_ENTRY, startServer, type ServerProcess } from './processes.js';
import { seed, type Seeded } from './seed.js';
import { startStandaloneEngine } from './standalone-engine.js';

/**
 * The service in default mode: started without MONGODB_URI, as `npm start`
 * runs it, so its engine runs inside its process on DATA_DIR (reached by the
 * service over a unix socket of its own, no port). Its data is the other
 * service's kind, seeded the same way beforehand: the engine on that same
 * directory, as its own process, seeded through the models, then stopped
 * (the data directory is locked by one engine at a time) before the service
 * opens it. Its ids, key secret and admin are its own.
 */
export async function startDefaultModeService(
  dataDir: string,
  options: BenchOptions,
  env: Record<string, string>,
): Promise<{ server: ServerProcess; seeded: Seeded }> {
  const engine = await startStandaloneEngine(dataDir);
  let seeded: Seeded;
  try {
    seeded = await seed(engine.uri, DEFAULT_DB_NAME, options);
  } finally {
    await engine.close();
  }
  const port = await freePort();
  const server = await startServer('service, default mode', SERVICE_ENTRY, { ...env, PORT: String(port), DATA_DIR: dataDir }, port, '/readyz');
  return { server, seeded };
}
