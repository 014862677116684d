import type { AccountStore } from './ports.js';
import type { Actor } from './actor.js';
import { usableAccount } from './account-check.js';
import { API_KEY_PREFIX, type CredentialStrategy } from './credentials.js';
import { verifyAccessToken, type JwtSettings } from './jwt.js';
import { permissionsOfRoles } from './role-permissions.js';
import type { SessionRecords } from './session.store.js';
import { errors } from '../errors/index.js';
import { refusedCredential } from './credential-refusal.js';

/**
 * Bearer access tokens. The token proves who the user is; the user record
 * (still existing, same tenant) and its current roles decide what they may
 * do, so a role change applies at once rather than at token expiry, and a
 * password change (a new token version) ends every token issued before it.
 * A token issued for a session (claim `sid`) lives only as long as the
 * session: its state is read at most once a second per session
 * (SessionRecords.isLive), so a session that is fine costs no read on most
 * requests. A token without `sid` (the CLI's) answers to its account alone.
 * A disabled account's tokens are refused (account-check.ts).
 */
export function jwtStrategy(settings: JwtSettings, accounts: AccountStore, sessions: Pick<SessionRecords, 'isLive'>): CredentialStrategy {
  return {
    name: 'jwt',
    recognises: (credential) => credential.from === 'bearer' && !credential.value.startsWith(API_KEY_PREFIX),
    async authenticate(credential): Promise<Actor> {
      const claims = verifyAccessToken(settings, credential.value);
      const account = await usableAccount(accounts, { userId: claims.sub, tenantId: claims.tenant, tokenVersion: claims.ver }, 'Access token');
      if (claims.sid !== undefined && !(await sessions.isLive(claims.sid))) {
        throw refusedCredential('jwt', 'session_ended', errors.unauthenticated('Access token revoked: its session ended'));
      }
      return {
        userId: claims.sub,
        tenantId: claims.tenant,
        roles: account.roles,
        permissions: await permissionsOfRoles(accounts, claims.tenant, account.roles),
        via: { kind: 'jwt', tokenVersion: claims.ver, ...(claims.sid === undefined ? {} : { sessionId: claims.sid }) },
      };
    },
  };
}
