import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { FORBIDDEN_KINDS, ForbiddenAddressError, guardedLookup, isForbiddenAddress } from './ssrf-guard.js';

export interface SendPolicy {
  /** Production without WEBHOOK_ALLOW_PRIVATE: https only, public addresses only. */
  guarded: boolean;
  timeoutMs: number;
  userAgent: string;
  /** The connections kept alive between deliveries (sendingAgents): absent, one connection per delivery. */
  agents?: SendingAgents;
}

export interface SendingAgents {
  http: HttpAgent;
  https: HttpsAgent;
  /** Closes every kept connection (shutdown). */
  destroy(): void;
}

/** How long an idle kept connection stays open. */
const KEEP_ALIVE_IDLE_MS = 4000;

/**
 * Keep-alive connections for the deliveries of one worker: a new TCP (and
 * TLS) connection per delivery cost more than the rest of the attempt. The
 * guard still holds: a connection is opened only to an address the guard let
 * through at that moment (guardedLookup), and a kept one goes on to that
 * address alone, so a name that resolves elsewhere later reaches nothing new.
 */
export function sendingAgents(maxSockets: number): SendingAgents {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: KEEP_ALIVE_IDLE_MS, scheduling: 'lifo' as const };
  const http = new HttpAgent(options);
  const https = new HttpsAgent(options);
  return { http, https, destroy: () => (http.destroy(), https.destroy()) };
}

export interface SendOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  /** Why it failed, briefly (never a header or the body sent). */
  error: string | null;
}

/** How much of a response body is read (then discarded). */
const BODY_READ_LIMIT = 4096;

/**
 * One POST to an endpoint: a 2xx within the timeout succeeds; anything else
 * (status, a 3xx: redirects are not followed, timeout, connection error, an
 * address the guard refuses) fails with a short reason.
 */
export function send(url: string, body: string, headers: Record<string, string>, policy: SendPolicy): Promise<SendOutcome> {
  const started = performance.now();
  const done = (ok: boolean, responseStatus: number | null, error: string | null): SendOutcome => ({
    ok,
    responseStatus,
    durationMs: Math.round(performance.now() - started),
    error,
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done(false, null, 'the url is not a valid URL'));
  }
  if (policy.guarded) {
    if (target.protocol !== 'https:') return Promise.resolve(done(false, null, 'refused: only https endpoints are allowed in production'));
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && isForbiddenAddress(literal)) {
      return Promise.resolve(done(false, null, `refused: ${literal} is ${FORBIDDEN_KINDS} (WEBHOOK_ALLOW_PRIVATE=true allows it)`));
    }
  }
  const secure = target.protocol === 'https:';
  const request = secure ? httpsRequest : httpRequest;
  const agent = policy.agents ? (secure ? policy.agents.https : policy.agents.http) : false;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': policy.userAgent },
        ...(policy.guarded ? { lookup: guardedLookup as never } : {}),
        agent,
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > BODY_READ_LIMIT) res.destroy();
        });
        const settle = () => finish(done(status >= 200 && status < 300, status, status >= 200 && status < 300 ? null : `the endpoint answered ${status}`));
        res.on('end', settle);
        res.on('close', settle);
        res.on('error', settle);
      },
    );
    const timer = setTimeout(() => {
      finish(done(false, null, `no answer within ${policy.timeoutMs} ms`));
      req.destroy();
    }, policy.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      const reason = error instanceof ForbiddenAddressError ? error.message : `connection failed (${error.code ?? 'error'})`;
      finish(done(false, null, reason));
    });
    req.end(body);
  });
}
