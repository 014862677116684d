import express, { type Request, type RequestHandler } from 'express';
import { AppError, errors } from '../errors/index.js';
import { nestsDeeperThan } from '../shared/index.js';
import { BODY_METHODS } from './rest-arguments.js';

interface BodyParserError {
  type?: string;
  charset?: string;
  status?: number;
  expose?: boolean;
  message?: string;
}

const JSON_TYPES = ['application/json', 'application/*+json'];
/** Deeper bodies are refused before anything walks them (MongoDB itself stores at most 100 levels). */
export const MAX_BODY_DEPTH = 64;
const EXPECTED_TYPE = 'application/json';

/**
 * JSON bodies up to BODY_LIMIT, parsed once for both surfaces. The parser's
 * own refusals become catalogue errors here: too large (413), malformed (400).
 * A body of any other type on a method that takes one is 415 naming
 * application/json: the parser would skip it and the operation would then
 * complain of missing arguments (or Apollo of a possible CSRF), which hides
 * the real mistake.
 */
export function useJsonBody({ limitBytes, limitLabel }: { limitBytes: number; limitLabel: string }): RequestHandler {
  const parse = express.json({ limit: limitBytes, strict: false, type: JSON_TYPES });
  return (req, res, next) => {
    if (BODY_METHODS.has(req.method) && hasBody(req) && !req.is(JSON_TYPES)) {
      return next(errors.unsupportedMediaType(EXPECTED_TYPE, mediaTypeOf(req)));
    }
    parse(req, res, (err?: unknown) => {
      if (err) return next(bodyError(err as BodyParserError, limitLabel));
      if (nestsDeeperThan(req.body, MAX_BODY_DEPTH)) {
        return next(errors.badInput(`The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`));
      }
      next();
    });
  };
}

/** The media type sent, without parameters, short enough to quote back. */
function mediaTypeOf(req: Request): string | undefined {
  return req.get('content-type')?.split(';')[0].trim().slice(0, 100) || undefined;
}

/** A body with content: chunked, or a non-zero Content-Length (clients send `Content-Length: 0` on an empty POST). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function bodyError(err: BodyParserError, limitLabel: string): unknown {
  if (err instanceof AppError) return err;
  if (err.type === 'entity.too.large' || err.status === 413) return errors.payloadTooLarge(limitLabel);
  if (err.type === 'entity.parse.failed') return errors.badInput('The request body is not valid JSON');
  // JSON is UTF-8 (RFC 8259); the parser names the charset it refused.
  if (err.type === 'charset.unsupported') return errors.unsupportedCharset(String(err.charset ?? 'another charset').slice(0, 40));
  if (err.expose && err.status && err.status >= 400 && err.status < 500) return errors.badInput(err.message ?? 'Bad request');
  return err;
}
