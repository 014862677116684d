import type { Request } from 'express';
import type { AppConfig } from '../config.js';
import { isAppError } from '../errors/index.js';
import type { EdgeScope } from '../http/index.js';
import { pathWithoutCredentials, redactCredentialShapes } from '../shared/index.js';
import type { UsageRecorder } from './api-key-usage.recorder.js';
import { keyVerificationOf, type ApiKeyCheck } from './api-key-check.js';
import type { AppContext } from './context.js';
import type { ActorResolver } from './credentials.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import { credentialRefusalOf } from './credential-refusal.js';
import type { ServiceMetrics } from '../metrics/index.js';

/**
 * The one context factory, called by the request edge (src/http/use-request-edge.ts)
 * for both surfaces, so credentials, request id and caller facts are the same
 * on GraphQL and REST. A refused credential is kept in `credentialError` and
 * thrown before the arguments of a protected operation are read
 * (credential-first.ts); login stays open. An API key's
 * answer carries its rate-limit fields, and its use is queued for the usage
 * log once the response is done.
 */
export function createRequestContextFactory(config: AppConfig, resolveActor: ActorResolver, usage?: UsageRecorder, checkApiKey?: ApiKeyCheck, metrics?: ServiceMetrics) {
  const answered = metrics && ((code: string) => metrics.keyVerified(code));
  return async (req: Request, edge: EdgeScope): Promise<AppContext> => {
    const ip = req.ip ?? req.socket.remoteAddress ?? '';
    const origin = req.get('origin') ?? undefined;
    const path = req.originalUrl.split('?')[0];
    // As sent, now: the usage is recorded once the response is done, after the edge ran a HEAD as its GET.
    const method = req.method;
    const userAgent = req.get('user-agent') || undefined;
    const context: AppContext = { actor: null, requestId: edge.requestId, ip, origin, userAgent, logger: edge.logger, config };
    // verifyApiKey runs the credential's own check; its uses are logged as this request's.
    if (checkApiKey && usage) context.keyVerification = keyVerificationOf(checkApiKey, (use) => usage.record(use), { method, path: usageLogged(path, null).path }, answered);
    try {
      context.actor = await resolveActor((name) => req.headers[name], { ip, origin, method, path });
    } catch (err) {
      if (!isAppError(err)) throw err;
      context.credentialError = err;
      if (metrics) countRefusal(metrics, err);
    }
    const via = context.actor?.via;
    if (via?.kind === 'api-key') {
      for (const [name, value] of Object.entries(rateLimitHeaders(via.rateLimit))) edge.setHeader(name, value);
      const at = new Date();
      edge.afterResponse((status) =>
        usage?.record({ apiKeyId: via.apiKeyId, at, ip, origin: origin ?? null, method, ...usageLogged(path, operationName(req)), status, operations: context.operations ?? [] }),
      );
    }
    return context;
  };
}

/** A credential refused (whether or not the operations called need one: it is not used either way), by its mark (credential-refusal.ts). */
function countRefusal(metrics: ServiceMetrics, err: unknown): void {
  const refusal = credentialRefusalOf(err) ?? { credential: 'header' as const, reason: 'other' };
  metrics.credentialRefused(refusal.credential, refusal.reason);
  if (refusal.credential === 'api_key' && refusal.reason === 'rate_limited') metrics.keyRateLimitRefused();
}

/** Kept in the usage log, which its readers see: a secret sent by mistake as a path segment or an operation name is not. */
const STORED_REDACTION = '[redacted]';

function usageLogged(path: string, operation: string | null): { path: string; operation: string | null } {
  return { path: pathWithoutCredentials(path, STORED_REDACTION), operation: operation && redactCredentialShapes(operation, STORED_REDACTION) };
}

const NAMED_OPERATION = /\b(?:query|mutation|subscription)\s+([_A-Za-z]\w{0,199})/;

/** The GraphQL operation a request runs: its `operationName`, else the name its document gives its first operation. */
function operationName(req: Request): string | null {
  const params = { ...(req.query as Record<string, unknown>), ...(req.body as Record<string, unknown> | undefined) };
  if (typeof params.operationName === 'string' && params.operationName.length <= 200) return params.operationName;
  // Only the document's start is read: the first operation's name is near it.
  return typeof params.query === 'string' ? (NAMED_OPERATION.exec(params.query.slice(0, 2000))?.[1] ?? null) : null;
}
