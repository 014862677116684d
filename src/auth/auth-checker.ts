import type { AuthCheckerFn } from 'type-graphql';
import { hasPermission } from './actor.js';
import { requireActor } from './require-actor.js';
import { errors } from '../errors/index.js';
import type { AppContext } from './context.js';

/**
 * `@Authorized('menus:write')`: the caller must hold every listed permission.
 * `@Authorized()` only needs a caller. No caller: 401 (with
 * `WWW-Authenticate: Bearer`); a missing permission: 403 naming it.
 */
export const authChecker: AuthCheckerFn<AppContext> = ({ context, info }, required) => {
  const actor = requireActor(context);
  // An API key's use logs the operations it reached (its scope report reads them), refused or not.
  if (actor.via.kind === 'api-key' && info.path.prev === undefined) (context.operations ??= []).push(`${info.parentType.name}.${info.fieldName}`);
  const missing = required.filter((permission) => !hasPermission(actor, permission));
  if (missing.length > 0) {
    throw errors.forbidden(`You do not have the permission ${missing.map((p) => `'${p}'`).join(', ')}`);
  }
  return true;
};
