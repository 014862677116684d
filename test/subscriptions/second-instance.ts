import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createHttpServer } from '../../src/http/http-server.js';
import { createService } from '../../src/service.js';
import { servedSchema, type TestApp } from '../support/test-app.js';

/** A second instance of the service in this process, on the same database and config as `app`, with its own tail and streams. */
export interface SecondInstance {
  baseUrl: string;
  /** Ends its streams, stops its server and the service. */
  close(): Promise<void>;
}

export async function startSecondInstance(app: TestApp): Promise<SecondInstance> {
  const logger = pino({ level: 'silent' });
  const handle = await createService(app.config, await servedSchema(), { logger });
  const server = createHttpServer(handle.app, logger, app.config.http, handle.upgrade).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      handle.endStreams?.();
      await new Promise((resolve) => server.close(resolve));
      await handle.stop();
    },
  };
}
