import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A client's own request id is kept when it is a short, plain token. */
const ACCEPTABLE_REQUEST_ID = /^[\w.:@-]{1,128}$/;

/**
 * One JSON log line per request, with its request id: the client's
 * `X-Request-Id` when acceptable, else a new UUID; echoed on the response.
 * Only method, path and status are logged; headers never are (no credentials).
 */
export function useRequestLogging({ logger }: { logger: Logger }): RequestHandler {
  return pinoHttp({
    logger,
    genReqId(req, res) {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactQuery(req.url),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
  }) as RequestHandler;
}

const SECRET_PARAMETER = /pass|token|secret|key|auth/i;

/** Query values that look like credentials are replaced before a URL is logged. */
export function redactQuery(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const params = new URLSearchParams(url.slice(mark + 1));
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAMETER.test(name)) params.set(name, '[redacted]');
  }
  return `${url.slice(0, mark)}?${params.toString()}`;
}
