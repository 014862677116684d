import express, { type RequestHandler } from 'express';

/**
 * JSON bodies up to BODY_LIMIT. Too large (413) and malformed JSON (400)
 * become errors that the problem handler renders.
 */
export function useJsonBody({ limitBytes }: { limitBytes: number }): RequestHandler {
  return express.json({ limit: limitBytes, strict: false, type: ['application/json', 'application/*+json'] });
}
