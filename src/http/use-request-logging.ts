import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { Kind, parse, print, stripIgnoredCharacters, visit, type ArgumentNode, type ObjectFieldNode, type StringValueNode } from 'graphql';
import { pinoHttp } from 'pino-http';
import { isSecretName, REDACTED, type Logger } from '../logger.js';
import { holdsCredentialShape, unescapeUnreserved } from '../shared/index.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A client's own request id is kept when it is a short, plain token that is no credential. */
const ACCEPTABLE_REQUEST_ID = /^[\w.:@-]{1,128}$/;

/**
 * One JSON log line per request, with its request id: the client's
 * `X-Request-Id` when acceptable, else a new UUID; echoed on the response.
 * An id shaped like an API key secret or a JWT is not acceptable: it would
 * be logged redacted (useless to find the request by) and kept in audit records.
 * Only method, path and status are logged; headers never are (no credentials).
 */
export function useRequestLogging({ logger }: { logger: Logger }): RequestHandler {
  return pinoHttp({
    logger,
    genReqId(req, res) {
      const incoming = req.headers['x-request-id'];
      const acceptable = typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) && !holdsCredentialShape(incoming);
      const id = acceptable ? incoming : randomUUID();
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: loggableUrl(req.url),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
  }) as RequestHandler;
}

/**
 * Tokens read from a GraphQL GET's `query` before it is logged: parsing is
 * linear (graphql-js's lexer), and a document over this is logged as dropped
 * (the service refuses such documents anyway).
 */
const LOG_MAX_TOKENS = 5_000;
const DROPPED = '[redacted: unreadable]';

/**
 * A URL as it may be logged: query values of secret-like parameters are
 * replaced, and so are, in a GraphQL GET, the values of `variables` (every
 * one: a variable's name does not say which argument it feeds, e.g.
 * `login(password: $p)`), the literal value of every secret-like argument or
 * input field of `query` and every variable default. The path's escaped
 * unreserved characters are unescaped (the same URL, RFC 3986 6.2.2.2), as
 * the query's are by its parsing, so that the log's redaction of secrets by
 * their shape (logger.ts) sees them. Everything here runs in time linear in
 * the URL's length.
 */
export function loggableUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return unescapeUnreserved(url);
  const params = new URLSearchParams(url.slice(mark + 1));
  for (const name of new Set(params.keys())) {
    const value = params.get(name)!;
    if (isSecretName(name)) params.set(name, REDACTED);
    else if (name === 'query') params.set(name, redactDocument(value));
    else if (name === 'variables') params.set(name, redactVariables(value));
    else if (name === 'extensions') params.set(name, redactJson(value));
  }
  return `${unescapeUnreserved(url.slice(0, mark))}?${params.toString()}`;
}

const REDACTED_STRING: StringValueNode = { kind: Kind.STRING, value: REDACTED };

/** The document with every secret-like argument or input field value and every variable default replaced; unparsable: dropped whole. */
function redactDocument(text: string): string {
  try {
    const document = parse(text, { noLocation: true, maxTokens: LOG_MAX_TOKENS });
    // A variable reference ($p) is no secret; its value is (redactVariables).
    const secretValue = <T extends ArgumentNode | ObjectFieldNode>(node: T): T | undefined =>
      isSecretName(node.name.value) && node.value.kind !== Kind.VARIABLE ? { ...node, value: REDACTED_STRING } : undefined;
    const redacted = visit(document, {
      Argument: secretValue,
      ObjectField: secretValue,
      VariableDefinition: (node) => (node.defaultValue ? { ...node, defaultValue: REDACTED_STRING } : undefined),
    });
    return stripIgnoredCharacters(print(redacted));
  } catch {
    return DROPPED;
  }
}

/** Every variable's value replaced, names kept; not a JSON object: dropped whole. */
function redactVariables(text: string): string {
  try {
    const variables: unknown = JSON.parse(text);
    if (!variables || typeof variables !== 'object' || Array.isArray(variables)) return DROPPED;
    return JSON.stringify(Object.fromEntries(Object.keys(variables).map((name) => [name, REDACTED])));
  } catch {
    return DROPPED;
  }
}

/** Secret-like fields of a JSON text, at any depth; text that is not JSON is dropped whole. */
function redactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), (field, value) => (field && isSecretName(field) ? REDACTED : value));
  } catch {
    return DROPPED;
  }
}
