import type { Actor } from './actor.js';
import { errors } from '../errors/index.js';

/**
 * Tenancy rules shared by every area whose records carry `tenant_id`.
 *
 * - A tenant member sees and changes only its own tenant's records. A record
 *   of another tenant is answered exactly like a missing one (404), so ids
 *   reveal nothing across tenants: services add `tenantScope(actor)` to the
 *   filter of every read, update and delete instead of checking afterwards.
 * - A platform caller (tenant null, e.g. the platform administrator) is not
 *   confined to a tenant: it reads and acts on every tenant's records.
 *   Permissions are still checked separately (`@Authorized`).
 * - On create, a tenant member creates in its own tenant (naming another one
 *   is 403); a platform caller has no tenant of its own and must name one.
 */
export const TENANT_FIELD = 'tenant_id';

export type TenantFilter = { tenant_id?: string };

export function tenantScope(actor: Actor): TenantFilter {
  return actor.tenantId === null ? {} : { tenant_id: actor.tenantId };
}

/** Whether a record owned by `tenantId` is visible to the actor. */
export function isInActorTenant(actor: Actor, tenantId: string | null | undefined): boolean {
  return actor.tenantId === null || actor.tenantId === tenantId;
}

/** The tenant a new record belongs to, given the `tenant_id` the caller named (if any). */
export function tenantForCreate(actor: Actor, requested: string | null | undefined): string {
  if (actor.tenantId === null) {
    if (!requested) {
      throw errors.invalidField(
        TENANT_FIELD,
        'required',
        'tenant_id is required when a platform administrator creates a record',
      );
    }
    return requested;
  }
  if (requested != null && requested !== actor.tenantId) {
    throw errors.forbidden(`You do not have permission to create records in tenant '${requested}'`);
  }
  return actor.tenantId;
}
