import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a piece of code runs for, where no request object reaches:
 * SOFA's error handler only receives the errors, yet its problem+json must
 * carry the request id. Set around the SOFA call in sofa.ts.
 */
export interface RequestScope {
  requestId: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
