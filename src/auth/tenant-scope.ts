import { Matches, type ValidationOptions } from 'class-validator';
import { isPlatformAdmin, type Actor } from './actor.js';
import { errors } from '../errors/index.js';

/**
 * Tenancy rules shared by every area whose records carry `tenant_id`.
 *
 * - A tenant member sees and changes only its own tenant's records. A record
 *   of another tenant is answered exactly like a missing one (404), so ids
 *   reveal nothing across tenants: services add `tenantScope(actor)` to the
 *   filter of every read, update and delete instead of checking afterwards.
 * - Only a platform administrator (no tenant, holding `*`) is unconfined.
 *   Being unconfined is decided by that, never by a missing tenant: any other
 *   caller without a tenant (a misconfigured record) is refused, not widened.
 *   Permissions are still checked separately (`@Authorized`).
 * - On create, a tenant member creates in its own tenant (naming another one
 *   is 403); a platform administrator has no tenant of its own and must name one.
 */
export const TENANT_FIELD = 'tenant_id';

export type TenantFilter = { tenant_id?: string };

/**
 * What a tenant id may be, wherever one is taken (users, roles, menus): 1 to
 * 100 lowercase ASCII letters, digits, `-`, `_` and `.`. No spaces, control
 * characters or look-alike letters that would make two tenants read the same;
 * and no uppercase, so that no two tenants differ only in letter case: the
 * users' unique email index compares emails case-insensitively through a
 * collation, which folds the tenant id beside them too (`ACME` and `acme`
 * would share their emails), while everything else compares tenants exactly.
 */
const TENANT_ID = /^[a-z0-9._-]{1,100}$/;

/** Said after the name of what was checked: `tenant_id must be …`. */
export const TENANT_ID_RULE = 'must be 1 to 100 lowercase letters (a-z), digits, -, _ or . (no spaces)';

export function isTenantId(value: unknown): value is string {
  return typeof value === 'string' && TENANT_ID.test(value);
}

/**
 * The rule of every input that takes a `tenant_id` (class-validator's
 * `matches`, so the JSON Schema and OpenAPI documents show the pattern).
 */
export function IsTenantId(options?: ValidationOptions): PropertyDecorator {
  return Matches(TENANT_ID, { message: `$property ${TENANT_ID_RULE}`, ...options });
}

/** The caller's own tenant; a platform administrator has none (null). Throws for a tenantless non-administrator. */
function confinedTenant(actor: Actor): string | null {
  if (isPlatformAdmin(actor)) return null;
  if (actor.tenantId === null) {
    throw errors.forbidden('Your account belongs to no tenant and is not a platform administrator: it can reach no records');
  }
  return actor.tenantId;
}

/** The filter confining a query to the caller's tenant (none for a platform administrator); refuses a tenantless non-administrator. */
export function tenantScope(actor: Actor): TenantFilter {
  const tenant = confinedTenant(actor);
  return tenant === null ? {} : { tenant_id: tenant };
}

/**
 * Refuses (403) a caller who may reach no tenant's records: for an operation
 * that reads no records of its own but must not run for such a caller.
 */
export function assertTenantScope(actor: Actor): void {
  confinedTenant(actor);
}

/** The tenant a new record belongs to, given the `tenant_id` the caller named (if any). */
export function tenantForCreate(actor: Actor, requested: string | null | undefined): string {
  const tenant = confinedTenant(actor);
  if (tenant === null) {
    if (!requested) {
      throw errors.invalidField(
        TENANT_FIELD,
        'required',
        'tenant_id is required when a platform administrator creates a record',
      );
    }
    return requested;
  }
  if (requested != null && requested !== tenant) {
    throw errors.forbidden(`You do not have permission to create records in tenant '${requested}'`);
  }
  return tenant;
}
