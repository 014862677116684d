import type { Response } from 'express';
import { errorCatalogue, isUnexpected, type AppError, type FieldError } from './catalogue.js';
import { fieldErrorsWithoutSuggestions, withoutSuggestions } from './suggestions.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9457 problem details, with our `code`, `requestId` and validation `errors`. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: FieldError[];
  /** Development only: what the masked error really was. */
  debug?: string;
}

export interface ProblemOptions {
  requestId: string;
  /** Development: add the masked cause's message. */
  exposeDetails?: boolean;
  /** Production: no "Did you mean" (suggestions.ts). */
  hideSuggestions?: boolean;
}

/** The one AppError -> problem+json mapping every REST error path uses. */
export function toProblem(error: AppError, { requestId, exposeDetails = false, hideSuggestions = false }: ProblemOptions): ProblemBody {
  const problem: ProblemBody = {
    // No per-problem documentation pages exist: RFC 9457's about:blank, the `code` tells problems apart.
    type: 'about:blank',
    title: errorCatalogue[error.code].title,
    status: error.status,
    detail: hideSuggestions ? withoutSuggestions(error.message) : error.message,
    code: error.code,
    requestId,
  };
  if (error.fieldErrors?.length) problem.errors = hideSuggestions ? fieldErrorsWithoutSuggestions(error.fieldErrors) : error.fieldErrors;
  if (exposeDetails && isUnexpected(error) && error.originalError) {
    problem.debug = error.originalError.message;
  }
  return problem;
}

/** Headers an error implies (WWW-Authenticate, Retry-After) plus the content type. */
export function problemHeaders(error: AppError): Record<string, string> {
  return { 'Content-Type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`, ...error.headers };
}

export function sendProblem(res: Response, error: AppError, options: ProblemOptions): void {
  res.status(error.status).set(problemHeaders(error)).send(JSON.stringify(toProblem(error, options)));
}
