import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { errors } from '../errors/index.js';
import { withWritePrecondition } from '../shared/index.js';
import { requestScope } from './request-scope.js';
import { routeMethod, type RestRoutes } from './rest-routes.js';

/**
 * ETag and conditional requests on the REST routes of one record (a path
 * ending in, or passing through, `/:id`). The ETag is strong:
 * `"<updatedAt in ms>-<sha256 of the answer, 16 hex>"`. The hash makes it
 * change with any byte of the answer (usage counters change without
 * `updatedAt`), so `If-None-Match` can answer 304 safely; the version part is
 * what a write can be made conditional on inside the database (a hash cannot
 * be compared there), so `If-Match` on a PATCH or DELETE is checked on it, by
 * the write itself (shared/write-precondition.ts): stale is 412, nothing changed.
 */
export interface RecordRoutes {
  /** Operations whose GET answers one record: they get an ETag. */
  reads: ReadonlySet<string>;
  /** PATCH and DELETE operations on one record: they take If-Match. */
  writes: ReadonlySet<string>;
}

/** The record routes of a REST table, from its paths (declared once, in each area's routes). */
export function recordRoutes(routes: RestRoutes): RecordRoutes {
  const reads = new Set<string>();
  const writes = new Set<string>();
  for (const [operation, route] of Object.entries(routes)) {
    const method = routeMethod(operation, route);
    const path = route.path ?? '';
    if (method === 'GET' && /\/:id$/.test(path)) reads.add(operation);
    if ((method === 'PATCH' || method === 'DELETE') && /\/:id(\/|$)/.test(path)) writes.add(operation);
  }
  return { reads, writes };
}

/** After the request edge (the REST route is known); GraphQL requests pass untouched. */
export function useConditionalRequests({ reads, writes }: RecordRoutes): RequestHandler {
  return (req, res, next) => {
    const operation = requestScope.getStore()?.restRoute?.operation;
    if (!operation) return next();
    if (reads.has(operation)) {
      tagAnswer(res, req.get('If-None-Match'));
      return next();
    }
    const ifMatch = req.get('If-Match');
    if (!writes.has(operation) || ifMatch === undefined || ifMatch.trim() === '*') return next();
    const updatedAt = versionOf(ifMatch);
    // An ETag this service never made matches no record: stale by definition.
    if (!updatedAt) return next(errors.preconditionFailed());
    withWritePrecondition({ updatedAt }, () => next());
  };
}

/** The record's ETag; undefined for an answer without `updatedAt`. */
export function etagOf(body: string): string | undefined {
  let updatedAt: unknown;
  try {
    updatedAt = (JSON.parse(body) as { updatedAt?: unknown }).updatedAt;
  } catch {
    return undefined;
  }
  const ms = typeof updatedAt === 'string' ? Date.parse(updatedAt) : NaN;
  if (Number.isNaN(ms)) return undefined;
  return `"${ms}-${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
}

/** The version an If-Match names: the first of its ETags this service could have made. */
function versionOf(ifMatch: string): Date | undefined {
  for (const tag of ifMatch.split(',')) {
    const match = /^"(\d{1,15})-[0-9a-f]{16}"$/.exec(tag.trim());
    if (match) return new Date(Number(match[1]));
  }
  return undefined;
}

/** Sets the ETag of a 200 answer as it is sent; 304 without a body when `If-None-Match` names it. */
function tagAnswer(res: Response, ifNoneMatch: string | undefined): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (res.statusCode !== 200 || (typeof chunk !== 'string' && !Buffer.isBuffer(chunk))) return end(chunk, ...rest);
    const etag = etagOf(chunk.toString());
    if (!etag) return end(chunk, ...rest);
    res.setHeader('ETag', etag);
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
      res.statusCode = 304;
      res.removeHeader('Content-Type');
      res.removeHeader('Content-Length');
      return end();
    }
    return end(chunk, ...rest);
  }) as Response['end'];
}
