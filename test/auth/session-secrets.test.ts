import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * Refresh tokens and passwords are secrets: never in a log line (at the
 * chattiest level), an audit record, the sessions collection or an answer
 * other than the one that issues them (login, refreshAccessToken). The flow
 * below runs every session operation on both surfaces, with mistakes that
 * put a token where it does not belong (a URL, a query string, a header).
 */

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let app: TestApp;
let user: TestUser;
let admin: TestUser;
const TENANT = 'tenant-session-secrets';
const NEW_PASSWORD = 'Br4nd-new-secret!';
const WRONG_PASSWORD = 'Wr0ng-guess-secret';

beforeAll(async () => {
  app = await startTestApp({ logger: createLogger({ logLevel: 'trace' }, sink), env: { LOGIN_ACCOUNT_FAILURES: '1000', LOGIN_IP_FAILURES: '1000' } });
  [user, admin] = await Promise.all([app.createUser({ tenantId: TENANT, roles: ['member'] }), app.createUser({ tenantId: TENANT })]);
});
afterAll(() => app?.close());

/** Every answer of the flow but the ones that issue tokens, as text. */
const otherAnswers: string[] = [];
/** Every refresh token issued. */
const issued: string[] = [];

const keep = (answer: { body: unknown }) => otherAnswers.push(JSON.stringify(answer.body));
/** The secret of `rt_<24 hex session id>_<secret>` (the session id is public). */
const secretPart = (refreshToken: string) => refreshToken.slice('rt_'.length + 24 + 1);

async function loginOver(surface: 'rest' | 'graphql', password = user.password) {
  const body = { email: user.email, password, tenantId: TENANT };
  const answer =
    surface === 'rest'
      ? await app.rest('POST', '/auth/login', { body })
      : await app.graphql('mutation($email: String!, $password: String!, $tenantId: String) { login(email: $email, password: $password, tenantId: $tenantId) { accessToken refreshToken } }', body);
  const tokens = surface === 'rest' ? answer.body : answer.body.data?.login;
  if (tokens?.refreshToken) issued.push(tokens.refreshToken);
  return tokens as { accessToken: string; refreshToken: string };
}

async function refreshOver(surface: 'rest' | 'graphql', refreshToken: string) {
  const answer =
    surface === 'rest'
      ? await app.rest('POST', '/auth/refresh', { body: { refreshToken } })
      : await app.graphql('mutation($t: String!) { refreshAccessToken(refreshToken: $t) { accessToken refreshToken } }', { t: refreshToken });
  const tokens = surface === 'rest' ? (answer.status === 200 ? answer.body : null) : (answer.body.data?.refreshAccessToken ?? null);
  if (tokens?.refreshToken) issued.push(tokens.refreshToken);
  else keep(answer);
  return tokens as { accessToken: string; refreshToken: string } | null;
}

describe('refresh tokens and passwords in the session flow', () => {
  it('appear only in the answers that issue them', async () => {
    for (const surface of ['rest', 'graphql'] as const) {
      const first = await loginOver(surface);
      const second = (await refreshOver(surface, first.refreshToken))!;
      // Reuse: the spent token again ends the session.
      expect(await refreshOver(surface, first.refreshToken)).toBeNull();
      expect(await refreshOver(surface, second.refreshToken)).toBeNull();

      const session = await loginOver(surface);
      const token = session.accessToken;
      // Mistakes: the refresh token in a URL path, a query string, a header.
      keep(await app.rest('GET', `/auth/sessions/${session.refreshToken}`, { token }));
      keep(await app.rest('GET', `/auth/sessions?refreshToken=${session.refreshToken}`, { token }));
      keep(await app.rest('GET', '/auth/sessions', { token, headers: { 'x-refresh-token': session.refreshToken } }));
      keep(await app.graphql(`query { session(id: "${session.refreshToken}") { id } }`, undefined, { token }));

      keep(await app.rest('GET', '/auth/sessions', { token }));
      keep(await app.graphql('query { mySessions { id ip userAgent current } }', undefined, { token }));
      keep(await app.rest('GET', `/access-control/users/${user.id}/sessions`, { token: admin.token }));
      keep(await app.rest('PATCH', `/access-control/users/${user.id}`, { token, body: { email: `new.${surface}@example.test`, currentPassword: WRONG_PASSWORD, updatedBy: user.id } }));
      keep(await app.rest('POST', '/auth/password', { token, body: { currentPassword: WRONG_PASSWORD, newPassword: NEW_PASSWORD } }));
      keep(await app.graphql('mutation($c: String!, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) { tokenType } }', { c: WRONG_PASSWORD, n: NEW_PASSWORD }, { token }));
      keep(await app.rest('POST', '/auth/logout', { token }));
      expect(await refreshOver(surface, session.refreshToken)).toBeNull();

      const last = await loginOver(surface);
      keep(await app.graphql('mutation { logout { id endedAt } }', undefined, { token: last.accessToken }));
    }
    // A password change that succeeds, then one back (its answer is an access token: no refresh token, no password).
    const changing = await loginOver('rest');
    const changed = await app.rest('POST', '/auth/password', { token: changing.accessToken, body: { currentPassword: user.password, newPassword: NEW_PASSWORD } });
    expect(changed.status).toBe(200);
    keep(changed);
    keep(await app.rest('DELETE', `/access-control/users/${user.id}/sessions`, { token: admin.token }));

    expect(issued.length).toBeGreaterThanOrEqual(8);
    const secrets = [...issued.map(secretPart), NEW_PASSWORD, WRONG_PASSWORD, user.password];

    // Logs: every line the app wrote, at trace level.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const log = lines.join('\n');
    expect(lines.length).toBeGreaterThan(20);
    for (const secret of secrets) expect(log).not.toContain(secret);

    // Audit records: every one written.
    const audit = JSON.stringify(await app.db.collection('auditevents').find({}).toArray());
    expect(audit).toContain('auth.refresh-reuse');
    expect(audit).toContain('auth.logout');
    expect(audit).toContain('auth.password-change');
    for (const secret of secrets) expect(audit).not.toContain(secret);

    // Stored sessions: hashes only.
    const stored = JSON.stringify(await app.db.collection('sessions').find({}).toArray());
    for (const secret of secrets) expect(stored).not.toContain(secret);

    // Every other answer.
    const answers = otherAnswers.join('\n');
    for (const secret of secrets) expect(answers).not.toContain(secret);
  });
});
