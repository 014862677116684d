import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { errors } from '../errors/index.js';
import { executedOperations, responseKeysOf } from '../graphql/index.js';
import type { IdempotencyRecords } from './idempotency-records.js';
import { requestScope } from './request-scope.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Answered `true` on a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** Printable ASCII without spaces, 1–255 characters (a UUID, a ULID, a client's own token). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** How long a repeat waits for the first request of its key to finish before a 409. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 25;
/** A claim older than this whose request never finished (its instance stopped) is given up. */
const ABANDONED_CLAIM_MS = 2 * 60_000;

/**
 * A create whose answer holds a secret shown once (an API key, a password
 * ticket): what is kept for a replay has `field` null, under every name the
 * request selected it by (a GraphQL alias too), and `detail` saying why; the
 * first answer is sent as made.
 */
export interface ShownOnce {
  field: string;
  detail: string;
}

export interface IdempotencyOptions<TContext> {
  /** The operations that create a record (`Mutation.createUser`): the REST routes answered 201. */
  creates: ReadonlySet<string>;
  /** Whose keys these are: one caller's credential and tenant; undefined: no caller (the key is ignored). */
  scopeOf(context: TContext): string | undefined;
  /** Per operation whose result holds a secret: what a replay answers instead. */
  replayed?: Readonly<Record<string, ShownOnce>>;
  records: IdempotencyRecords;
}

/**
 * `Idempotency-Key` on every create, both surfaces, after the request edge
 * (the caller is known, the REST route found). The first request of a key
 * claims it in the database (one insert: of concurrent requests one wins);
 * its answer, when a success, is stored before it is sent, and a repeat with
 * the same body answers it again (same status and body, `Idempotent-Replayed:
 * true`) without running the operation. Another body is 422. A failed first
 * request changes nothing, so its key is given back for a retry.
 */
export function useIdempotencyKey<TContext>(schema: GraphQLSchema, graphqlPath: string, options: IdempotencyOptions<TContext>): RequestHandler {
  const { creates, scopeOf, replayed = {}, records } = options;
  return async (req, res, next) => {
    const scope = requestScope.getStore();
    const header = req.get(IDEMPOTENCY_HEADER);
    if (header === undefined || !scope) return next();
    try {
      const isGraphQL = req.path === graphqlPath;
      const operations = isGraphQL ? executedGraphqlOperations(schema, req) : scope.restRoute ? [scope.restRoute.operation] : [];
      const operation = operations.find((name) => creates.has(name));
      const caller = scopeOf(scope.context as TContext);
      // Reads, other mutations and anonymous calls: nothing to repeat safely, the header is ignored.
      if (!operation || !caller) return next();
      if (!KEY_PATTERN.test(header)) {
        throw errors.invalidField(IDEMPOTENCY_HEADER, 'idempotencyKey', `${IDEMPOTENCY_HEADER} must be 1-255 printable ASCII characters without spaces`);
      }
      const id = sha256(`${caller}\u0000${header}`);
      const fingerprint = sha256(canonicalJson(isGraphQL ? { graphql: req.body } : { method: req.method, path: req.path, query: req.query, body: req.body }));
      const earlier = await claimOrWait(records, id, fingerprint);
      if (earlier) {
        if (earlier.fingerprint !== fingerprint) throw errors.idempotencyKeyReused();
        res.status(earlier.status!).setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
        if (earlier.contentType) res.setHeader('Content-Type', earlier.contentType);
        res.end(earlier.body);
        return;
      }
      keepAnswer(res, secretKeys(req, isGraphQL, replayed[operation]), (answer) => (answer ? records.complete(id, answer) : records.release(id)));
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * The operations of the one operation a GraphQL POST runs (`operationName`,
 * or the only one), never another create written beside it: its answer is
 * the one kept, so the replay form must be the executed create's (a ticket
 * or a key would otherwise be stored in clear). A GET runs no mutation.
 */
function executedGraphqlOperations(schema: GraphQLSchema, req: Request): readonly string[] {
  const params = req.body as Record<string, unknown> | undefined;
  if (req.method !== 'POST' || !params || Array.isArray(params) || typeof params.query !== 'string') return [];
  return executedOperations(schema, params.query, typeof params.operationName === 'string' ? params.operationName : undefined);
}

/** Null: this request claimed the key. Else the record of the first request, once done. */
async function claimOrWait(records: IdempotencyRecords, id: string, fingerprint: string) {
  const until = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    if (await records.claim(id, fingerprint)) return null;
    const record = await records.find(id);
    // Gone (the first failed and gave it back): claim again at once.
    if (!record) continue;
    // Claimed by a request whose instance stopped before it answered: given up, whatever it held.
    if (record.state === 'pending' && Date.now() - record.createdAt.getTime() > ABANDONED_CLAIM_MS) {
      await records.release(id, new Date(Date.now() - ABANDONED_CLAIM_MS));
      continue;
    }
    if (record.state === 'done' || record.fingerprint !== fingerprint) return record;
    if (Date.now() > until) throw errors.idempotencyKeyInProgress();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

type StoredAnswer = { status: number; contentType?: string; body: string };

/**
 * Collects the answer as it is written and, before its last byte leaves,
 * stores it (a success) or gives the key back (anything else): a client that
 * has the answer finds it kept. GraphQL answers a failure with `errors`.
 */
function keepAnswer(res: Response, secret: SecretKeys, settle: (answer: StoredAnswer | undefined) => Promise<void>): void {
  const chunks: Buffer[] = [];
  const collect = (chunk: unknown, encoding?: unknown) => {
    if (chunk == null || typeof chunk === 'function') return;
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    collect(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as Response['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    collect(chunk, rest[0]);
    const text = Buffer.concat(chunks).toString('utf8');
    const answer = storedAnswer(res, text, secret);
    settle(answer).then(
      () => end(chunk, ...rest),
      (err: unknown) => {
        res.req.log?.error({ err }, 'the idempotency record could not be written');
        end(chunk, ...rest);
      },
    );
    return res;
  }) as Response['end'];
}

function storedAnswer(res: Response, text: string, secret: SecretKeys): StoredAnswer | undefined {
  if (res.statusCode < 200 || res.statusCode >= 300) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (secret.isGraphQL) {
    const answer = parsed as { data?: Record<string, unknown> | null; errors?: unknown[] };
    if (answer.errors?.length || !answer.data) return undefined;
    for (const [field, result] of Object.entries(answer.data)) answer.data[field] = result && withoutSecret(result as Record<string, unknown>, secret);
  } else if (parsed && typeof parsed === 'object') {
    parsed = withoutSecret(parsed as Record<string, unknown>, secret);
  }
  return { status: res.statusCode, contentType: String(res.getHeader('content-type') ?? 'application/json'), body: JSON.stringify(parsed) };
}

/** Where the executed create's answer holds its secret (none: kept as made). */
interface SecretKeys {
  isGraphQL: boolean;
  keys: readonly string[];
  detail?: string;
}

function secretKeys(req: Request, isGraphQL: boolean, shownOnce: ShownOnce | undefined): SecretKeys {
  if (!shownOnce) return { isGraphQL, keys: [] };
  const params = req.body as { query: string; operationName?: unknown };
  const keys = isGraphQL ? responseKeysOf(params.query, typeof params.operationName === 'string' ? params.operationName : undefined, shownOnce.field) : [shownOnce.field];
  return { isGraphQL, keys, detail: shownOnce.detail };
}

function withoutSecret(result: Record<string, unknown>, { keys, detail }: SecretKeys): Record<string, unknown> {
  const held = keys.filter((key) => key in result);
  return held.length === 0 ? result : { ...result, ...Object.fromEntries(held.map((key) => [key, null])), detail };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted: the same body in another key order is the same request. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

