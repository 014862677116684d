import type { Actor } from './actor.js';
import type { CredentialStrategy } from './credentials.js';
import { API_KEY_PREFIX } from './credentials.js';
import { isObjectIdString } from '../shared/object-id.js';
import { verifyAccessToken, type JwtSettings } from './jwt.js';
import { permissionsOfRoles } from './role-permissions.js';
import { errors } from '../errors.js';
import { UserModel } from '../users/user.model.js';

/**
 * Bearer access tokens. The token proves who the user is; the user record
 * (still existing, same tenant) and its current roles decide what they may
 * do, so a role change applies at once rather than at token expiry.
 */
export function jwtStrategy(settings: JwtSettings): CredentialStrategy {
  return {
    name: 'jwt',
    recognises: (credential) => credential.from === 'bearer' && !credential.value.startsWith(API_KEY_PREFIX),
    async authenticate(credential): Promise<Actor> {
      const claims = verifyAccessToken(settings, credential.value);
      const user = isObjectIdString(claims.sub)
        ? await UserModel.findById(claims.sub, { roles: 1, tenant_id: 1 }).lean()
        : null;
      if (!user || (user.tenant_id ?? null) !== claims.tenant) {
        throw errors.unauthenticated('Invalid access token: unknown user');
      }
      const roles = user.roles ?? [];
      return {
        userId: claims.sub,
        tenantId: claims.tenant,
        roles,
        permissions: await permissionsOfRoles(claims.tenant, roles),
        via: { kind: 'jwt' },
      };
    },
  };
}
