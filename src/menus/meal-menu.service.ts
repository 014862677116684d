import { hasPermission, tenantForCreate, tenantScope, type Actor } from '../auth/index.js';
import { errors } from '../errors/index.js';
import type { Page } from '../shared/index.js';
import type { CreateMealMenuArgs, MealMenusArgs } from './meal-menu.inputs.js';
import type { MealMenu } from './meal-menu.model.js';
import type { MealMenuDocument, MealMenuRecords } from './meal-menu.store.js';
import { DeleteMode, type DeleteMealMenuResult } from './meal-menu.types.js';

export type { MealMenuDocument } from './meal-menu.store.js';

const notFound = (id: string) => errors.notFound('Meal menu', id);

/**
 * Meal menu rules. Every method takes the caller as a plain `Actor`; every
 * read and write is confined to the caller's tenant (tenant-scope.ts), so
 * another tenant's menu is indistinguishable from a missing one (404). The
 * reads and writes themselves are MealMenuRecords' (meal-menu.store.ts).
 */
export class MealMenuService {
  constructor(private readonly menus: MealMenuRecords) {}

  /** Deleted menus are listed only to a caller who may delete them. */
  list(actor: Actor, args: MealMenusArgs): Promise<Page<MealMenu>> {
    if (args.includeDeleted && !hasPermission(actor, 'menus:delete')) {
      throw errors.forbidden('You do not have permission to list deleted meal menus (menus:delete)');
    }
    return this.menus.list(tenantScope(actor), args);
  }

  async get(actor: Actor, id: string): Promise<MealMenu> {
    const menu = await this.menus.findLive(tenantScope(actor), id);
    if (!menu) throw notFound(id);
    return menu;
  }

  create(actor: Actor, args: CreateMealMenuArgs): Promise<MealMenuDocument> {
    const { tenant_id: requestedTenant, ...fields } = args;
    return this.menus.create({
      ...fields,
      tenant_id: tenantForCreate(actor, requestedTenant),
      createdBy: actor.userId,
      updatedBy: actor.userId,
      // Stored explicitly: its presence is what makes a later delete soft.
      deletedAt: null,
    });
  }

  async updateEstimatedPortions(actor: Actor, id: string, portions: number): Promise<MealMenu> {
    const menu = await this.menus.setEstimatedPortions(tenantScope(actor), id, portions, actor.userId);
    if (!menu) throw notFound(id);
    return menu;
  }

  /**
   * Soft or hard, decided on the stored record (service-description section 3):
   * with a `deletedAt` field it is soft-deleted, without one it is removed.
   * An already soft-deleted menu counts as gone (404).
   */
  async delete(actor: Actor, id: string): Promise<DeleteMealMenuResult> {
    const scope = tenantScope(actor);
    const stored = await this.menus.deletionState(scope, id);
    if (!stored || stored.deletedAt !== null) throw notFound(id);
    // Not answered (no GraphQL field): it tells the audit trail whose menu it was.
    const { tenant_id } = stored;

    if (stored.storesDeletedAt) {
      const deletedAt = await this.menus.markDeleted(scope, id, actor.userId);
      if (!deletedAt) throw notFound(id);
      return { id, mode: DeleteMode.soft, deletedAt, tenant_id };
    }

    if (!(await this.menus.removeLegacy(scope, id))) throw notFound(id);
    return { id, mode: DeleteMode.hard, deletedAt: null, tenant_id };
  }
}
