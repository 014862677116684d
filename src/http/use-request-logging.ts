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
const REDACTED = '[redacted]';
/** A GraphQL argument with a secret-like name and its string literal (plain or block). */
const SECRET_ARGUMENT = /(\b\w*(?:pass|token|secret|key|auth)\w*\s*:\s*)("""[\s\S]*?"""|"(?:[^"\\]|\\.)*")/gi;

/**
 * Query values that look like credentials are replaced before a URL is logged,
 * and so are secrets inside a GraphQL GET's `query` (argument literals) and
 * `variables` (JSON fields), e.g. `/graphql?query=mutation{login(password:"…")}`.
 */
export function redactQuery(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const params = new URLSearchParams(url.slice(mark + 1));
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAMETER.test(name)) params.set(name, REDACTED);
    else if (name === 'query') params.set(name, params.get(name)!.replace(SECRET_ARGUMENT, `$1"${REDACTED}"`));
    else if (name === 'variables' || name === 'extensions') params.set(name, redactJson(params.get(name)!));
  }
  return `${url.slice(0, mark)}?${params.toString()}`;
}

/** Secret-like fields of a JSON text, at any depth; text that is not JSON is dropped whole. */
function redactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), (field, value) => (field && SECRET_PARAMETER.test(field) ? REDACTED : value));
  } catch {
    return REDACTED;
  }
}
