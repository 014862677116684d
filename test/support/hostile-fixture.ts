import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { ObjectId } from 'mongodb';
import { encodeCursor } from '../../src/shared/pagination.js';
import { PLACEHOLDER, prototypeFingerprint, snapshotDatabase, unexpectedChanges, type Placeholders } from './hostile.js';
import { startTestApp, type RequestOptions, type TestApp, type TestResponse } from './test-app.js';

/**
 * The app the hostile-input proofs attack: callers of every kind (so
 * requests reach the resolvers), records for ids to point at, and the check
 * every answer must pass.
 */
export interface HostileCaller {
  name: string;
  /** The `Authorization` header, if any. */
  headers: Record<string, string>;
  /** The placeholders as this caller's requests use them. */
  placeholders: Placeholders;
}

export interface HostileFixture {
  app: TestApp;
  callers: HostileCaller[];
  /** A caller, weighted towards the platform administrator and the tenant member the issue names. */
  caller: fc.Arbitrary<HostileCaller>;
  /**
   * Sends one request and checks the answer: never a 5xx; a refusal is
   * problem+json with a `code` (REST) or GraphQL errors each with
   * `extensions.code`; a refused request changed nothing in the database;
   * no built-in prototype gained a key.
   */
  attempt(surface: 'rest' | 'graphql', method: string, path: string, opts: RequestOptions): Promise<TestResponse>;
}

export const HOSTILE_TENANT = 't-hostile';

export async function startHostileFixture(): Promise<HostileFixture> {
  const app = await startTestApp();
  const platform = await app.createUser({ tenantId: null, roles: ['admin'] });
  const tenantAdmin = await app.createUser({ tenantId: HOSTILE_TENANT, roles: ['admin'] });
  const member = await app.createUser({ tenantId: HOSTILE_TENANT, roles: ['member'] });
  const bystander = await app.createUser({ tenantId: HOSTILE_TENANT, roles: ['member'] });

  const asAdmin = { token: tenantAdmin.token };
  const created = async (path: string, body: unknown) => {
    const answer = await app.rest('POST', path, { ...asAdmin, body });
    if (answer.status !== 201) throw new Error(`fixture ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const menu = await created('/restaurant/meal-menus', { name: 'Target', date: '2030-01-18', mealType: 'lunch', estimatedPortions: 5 });
  const role = await created('/access-control/roles', { name: 'readers', permissions: ['menus:read'] });
  const key = await created('/api-keys', { name: 'target', scopes: ['menus:read'] });
  const callerKey = await created('/api-keys', { name: 'caller', scopes: ['menus:read', 'menus:write', 'users:read', 'api-keys:read', 'audit:read', 'schemas:read'], rateLimit: 1_000_000 });

  const shared = {
    [PLACEHOLDER.menu]: menu.id,
    [PLACEHOLDER.user]: bystander.id,
    [PLACEHOLDER.key]: key.id,
    [PLACEHOLDER.role]: role.id,
    [PLACEHOLDER.cursor]: encodeCursor(new ObjectId(menu.id)),
  };
  const callerOf = (name: string, credential: string | null, self: string): HostileCaller => ({
    name,
    headers: credential ? { authorization: `Bearer ${credential}` } : {},
    placeholders: { ...shared, [PLACEHOLDER.self]: self } as Placeholders,
  });
  const callers = [
    callerOf('platform admin', platform.token, platform.id),
    callerOf('tenant member', member.token, member.id),
    callerOf('tenant admin', tenantAdmin.token, tenantAdmin.id),
    callerOf('API key of the tenant admin', callerKey.key, tenantAdmin.id),
    callerOf('nobody', null, new ObjectId().toHexString()),
  ];
  const caller = fc.oneof(
    { arbitrary: fc.constant(callers[0]!), weight: 4 },
    { arbitrary: fc.constant(callers[1]!), weight: 4 },
    { arbitrary: fc.constant(callers[2]!), weight: 2 },
    { arbitrary: fc.constant(callers[3]!), weight: 1 },
    { arbitrary: fc.constant(callers[4]!), weight: 1 },
  );

  const prototypes = prototypeFingerprint();

  async function attempt(surface: 'rest' | 'graphql', method: string, path: string, opts: RequestOptions): Promise<TestResponse> {
    const before = await snapshotDatabase(app.db);
    const answer = await app.http(method, path, opts);
    const refused = surface === 'rest' ? answer.status >= 400 : answer.status >= 400 || Array.isArray(answer.body?.errors);
    if (TRACE_FILE) traceAnswer(surface, method, path, answer);
    const where = `${method} ${path.slice(0, 300)} -> ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 600)}`;
    if (answer.status >= 500) throw new Error(`a 5xx: ${where}`);
    if (refused && method !== 'HEAD') assertCodedRefusal(surface, answer, where);
    if (refused) {
      const changes = unexpectedChanges(before, await snapshotDatabase(app.db));
      if (changes.length > 0) throw new Error(`a refused request changed the database (${changes.join('; ')}): ${where}`);
    }
    if (prototypeFingerprint() !== prototypes) throw new Error(`a built-in prototype changed: ${where}`);
    return answer;
  }

  return { app, callers, caller, attempt };
}

/** HOSTILE_TRACE=<file>: one tab-separated line per request (surface, method, path, status, codes), to see what a run reached. */
const TRACE_FILE = process.env.HOSTILE_TRACE;

function traceAnswer(surface: string, method: string, path: string, answer: TestResponse): void {
  const codes = answer.body?.code ?? answer.body?.errors?.map((error: { extensions?: { code?: string } }) => error.extensions?.code).join(',') ?? '';
  appendFileSync(TRACE_FILE!, `${[surface, method, path.slice(0, 200), answer.status, codes].join('\t')}\n`);
}

function assertCodedRefusal(surface: 'rest' | 'graphql', answer: TestResponse, where: string): void {
  const contentType = answer.headers.get('content-type') ?? '';
  if (surface === 'rest') {
    if (!contentType.startsWith('application/problem+json')) throw new Error(`a refusal that is not problem+json (${contentType}): ${where}`);
    if (typeof answer.body?.code !== 'string' || answer.body.code === '') throw new Error(`a problem without a code: ${where}`);
    if (answer.body.status !== answer.status) throw new Error(`a problem whose status is not the answer's: ${where}`);
    return;
  }
  // A GraphQL refusal: JSON with errors, each carrying a code (a non-GraphQL answer, e.g. 413, is problem+json).
  if (contentType.startsWith('application/problem+json')) return assertCodedRefusal('rest', answer, where);
  const errors = answer.body?.errors;
  if (!Array.isArray(errors) || errors.length === 0) throw new Error(`a GraphQL refusal without errors: ${where}`);
  for (const error of errors) {
    const code = error?.extensions?.code;
    if (typeof code !== 'string' || code === '') throw new Error(`a GraphQL error without extensions.code: ${where}`);
    if (code === 'INTERNAL_SERVER_ERROR' || Number(error.extensions.http?.status) >= 500) throw new Error(`a GraphQL 5xx error: ${where}`);
  }
}
