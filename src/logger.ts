import { pino, type DestinationStream, type Logger } from 'pino';
import type { AppConfig } from './config.js';

export type { Logger } from 'pino';

/**
 * Secrets never reach a log line: credentials in headers and any field that
 * looks like a password, token or key is replaced wherever it appears.
 */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'password',
  'passwordHash',
  'token',
  'accessToken',
  'secret',
  'key',
  'apiKey',
  '*.password',
  '*.passwordHash',
  '*.token',
  '*.accessToken',
  '*.secret',
  '*.key',
  '*.apiKey',
  '*.authorization',
];

/** JSON lines to stdout (or `destination`), secrets redacted. */
export function createLogger(config: Pick<AppConfig, 'logLevel'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    base: { service: 'admin-gateway' },
  };
  return destination ? pino(options, destination) : pino(options);
}
