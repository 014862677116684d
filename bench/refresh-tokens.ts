/// <reference path="../test/reliability/autocannon.d.ts" />
import type { AutocannonRequest } from 'autocannon';

/**
 * Live refresh tokens for the refresh scenario. A refresh spends its token
 * and answers the next one (rotation; presenting a spent token ends the
 * session), so each request takes a token from the pool and its answer puts
 * the new one back. A round's end drops the tokens in flight: `fill` signs
 * seeded members in again (through the REST sign-in, a few at a time: the
 * sign-in throttle counts each attempt until it succeeds) before each round.
 */
export interface RefreshTokenPool {
  fill(): Promise<void>;
  request(): AutocannonRequest;
}

const SIGN_INS_AT_ONCE = 4;

export function refreshTokenPool(baseUrl: string, emails: string[], password: string, size: number): RefreshTokenPool {
  const tokens: string[] = [];
  let nextEmail = 0;
  const signIn = async () => {
    const email = emails[nextEmail++ % emails.length];
    const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const body = (await response.json()) as { refreshToken?: string };
    if (response.status !== 200 || !body.refreshToken) throw new Error(`sign-in of ${email} for the refresh scenario answered ${response.status}`);
    tokens.push(body.refreshToken);
  };
  return {
    async fill() {
      while (tokens.length < size) {
        await Promise.all(Array.from({ length: Math.min(SIGN_INS_AT_ONCE, size - tokens.length) }, signIn));
      }
    },
    request: () => ({
      method: 'POST',
      path: '/api/v1/auth/refresh',
      headers: { 'content-type': 'application/json' },
      // An empty pool sends no token: a 4xx, counted as unexpected (the pool was too small).
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ refreshToken: tokens.pop() ?? '' }) }),
      onResponse: (status, body) => {
        // A pattern, not JSON.parse: the load generator's CPU is shared with the processes it measures.
        const token = status === 200 ? /"refreshToken":"([^"]+)"/.exec(body)?.[1] : undefined;
        if (token) tokens.push(token);
      },
    }),
  };
}
