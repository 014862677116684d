import type { AccountStore } from './ports.js';
import type { Actor } from './actor.js';
import { API_KEY_PREFIX, type CredentialStrategy } from './credentials.js';
import { verifyAccessToken, type JwtSettings } from './jwt.js';
import { permissionsOfRoles } from './role-permissions.js';
import { errors } from '../errors/index.js';
import { ACCOUNT_DISABLED, isAccountActive } from './account-status.js';

/**
 * Bearer access tokens. The token proves who the user is; the user record
 * (still existing, same tenant) and its current roles decide what they may
 * do, so a role change applies at once rather than at token expiry, and a
 * password change (a new token version) ends every token issued before it;
 * a disabled account's tokens are refused.
 */
export function jwtStrategy(settings: JwtSettings, accounts: AccountStore): CredentialStrategy {
  return {
    name: 'jwt',
    recognises: (credential) => credential.from === 'bearer' && !credential.value.startsWith(API_KEY_PREFIX),
    async authenticate(credential): Promise<Actor> {
      const claims = verifyAccessToken(settings, credential.value);
      const account = await accounts.findAccount(claims.sub);
      if (!account || account.tenantId !== claims.tenant) {
        throw errors.unauthenticated('Invalid access token: unknown user');
      }
      // Before the version: a disable raises it too, and the holder is told why.
      if (!isAccountActive(account)) throw errors.unauthenticated(ACCOUNT_DISABLED);
      if (account.tokenVersion !== claims.ver) {
        // Issued before the latest password change (which raises the version).
        throw errors.unauthenticated('Access token revoked: the password changed');
      }
      return {
        userId: claims.sub,
        tenantId: claims.tenant,
        roles: account.roles,
        permissions: await permissionsOfRoles(accounts, claims.tenant, account.roles),
        via: { kind: 'jwt' },
      };
    },
  };
}
