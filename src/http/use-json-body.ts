import express, { type RequestHandler } from 'express';
import { AppError, errors } from '../errors/index.js';

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  message?: string;
}

/**
 * JSON bodies up to BODY_LIMIT, parsed once for both surfaces. The parser's
 * own refusals become catalogue errors here: too large (413), malformed (400).
 */
export function useJsonBody({ limitBytes, limitLabel }: { limitBytes: number; limitLabel: string }): RequestHandler {
  const parse = express.json({ limit: limitBytes, strict: false, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => parse(req, res, (err?: unknown) => next(err ? bodyError(err as BodyParserError, limitLabel) : undefined));
}

function bodyError(err: BodyParserError, limitLabel: string): unknown {
  if (err instanceof AppError) return err;
  if (err.type === 'entity.too.large' || err.status === 413) return errors.payloadTooLarge(limitLabel);
  if (err.type === 'entity.parse.failed') return errors.badInput('The request body is not valid JSON');
  if (err.expose && err.status && err.status >= 400 && err.status < 500) return errors.badInput(err.message ?? 'Bad request');
  return err;
}
