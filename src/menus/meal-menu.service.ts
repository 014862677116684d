import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted, type Types } from 'mongoose';
import { hasPermission, type Actor } from '../auth/index.js';
import { errors } from '../errors/index.js';
import { decodeDocument } from '../shared/bson-documents.js';
import { calendarDayOf } from '../shared/calendar-date.js';
import { leanDefaults } from '../shared/lean-defaults.js';
import { pathValidator } from '../shared/path-validator.js';
import { toObjectId } from '../shared/object-id.js';
import { collectionPages, findPage, type Page, type PageableModel } from '../shared/pagination.js';
import { tenantForCreate, tenantScope } from '../auth/index.js';
import type { CreateMealMenuArgs, MealMenusArgs } from './meal-menu.inputs.js';
import { MealMenu, MealMenuModel } from './meal-menu.model.js';
import { DeleteMode, type DeleteMealMenuResult } from './meal-menu.types.js';

export type MealMenuDocument = DocumentType<MealMenu>;

/** A menu as read with `lean()`: the stored fields, no mongoose document around them. */
type StoredMenu = Omit<MealMenu, 'id'> & { _id: Types.ObjectId };

/**
 * A live menu: `deletedAt` null. In a query `null` also matches a missing
 * field, so legacy records without `deletedAt` count as live too.
 */
const LIVE = { deletedAt: null } as const;

const notFound = (id: string) => errors.notFound('Meal menu', id);

/**
 * A record the driver answered as its bytes (`raw: true`, typed as a
 * document), decoded by decodeDocument as bson would with the driver's
 * defaults (bson-documents.ts says why it is cheaper): bson decoding the
 * updated menu was about 5% of the bytes a portions update allocated.
 */
const storedMenu = (bytes: object): StoredMenu => decodeDocument(bytes as Uint8Array) as StoredMenu;

/**
 * Meal menu rules. Every method takes the caller as a plain `Actor`; every
 * query is confined to the caller's tenant (tenant-scope.ts), so another
 * tenant's menu is indistinguishable from a missing one (404).
 * Ids reach here already validated as 24-hex (ObjectIdField).
 */
export class MealMenuService {
  /** The schema's defaults on a lean record (mongoose's applyDefaults, its plan made once). */
  private readonly withDefaults: (stored: StoredMenu) => StoredMenu;
  /** The schema's rules for `estimatedPortions`, as `runValidators` would apply them. */
  private readonly checkPortions: (portions: number) => Promise<void>;
  /** Pages read with the driver's find: the filter holds only validated values (see `list`). */
  private readonly pages: PageableModel<StoredMenu>;

  constructor(private readonly model: ReturnModelType<typeof MealMenu> = MealMenuModel) {
    this.withDefaults = leanDefaults<StoredMenu>(model.schema);
    this.checkPortions = pathValidator(model, 'estimatedPortions');
    this.pages = collectionPages<StoredMenu>(model);
  }

  async list(actor: Actor, args: MealMenusArgs): Promise<Page<MealMenu>> {
    if (args.includeDeleted && !hasPermission(actor, 'menus:delete')) {
      throw errors.forbidden('You do not have permission to list deleted meal menus (menus:delete)');
    }
    const filter = {
      ...tenantScope(actor),
      ...(args.includeDeleted ? {} : LIVE),
      ...(args.date ? { date: args.date } : {}),
      ...(args.mealType ? { mealType: args.mealType } : {}),
    };
    const page = await findPage(this.pages, filter, args);
    return { ...page, items: page.items.map((menu) => this.answered(menu)) };
  }

  /**
   * One driver findOne, as the write below: mongoose's query building and
   * filter casting around it were about 4% of a menu read's CPU, for a filter
   * of the validated ObjectId, the caller's own tenant and `null`.
   */
  async get(actor: Actor, id: string): Promise<MealMenu> {
    const menu = (await this.model.collection.findOne({ _id: toObjectId(id), ...tenantScope(actor), ...LIVE })) as StoredMenu | null;
    if (!menu) throw notFound(id);
    return this.answered(menu);
  }

  async create(actor: Actor, args: CreateMealMenuArgs): Promise<MealMenuDocument> {
    const { tenant_id: requestedTenant, ...fields } = args;
    return this.model.create({
      ...fields,
      tenant_id: tenantForCreate(actor, requestedTenant),
      createdBy: actor.userId,
      updatedBy: actor.userId,
      // Stored explicitly: its presence is what makes a later delete soft.
      deletedAt: null,
    });
  }

  /**
   * The schema's rules for the one field (the same check `runValidators`
   * makes, run on that path alone: path-validator.ts), then one driver
   * findOneAndUpdate that also sets what the schema's timestamps would:
   * mongoose's query building, casting and update validation around a
   * one-field `$set` were about 5% of the service's CPU on this write. Filter
   * values are the validated ObjectId and the caller's own tenant, never
   * client text used as an operator.
   */
  async updateEstimatedPortions(actor: Actor, id: string, portions: number): Promise<MealMenu> {
    await this.checkPortions(portions);
    const bytes = await this.model.collection.findOneAndUpdate(
      { _id: toObjectId(id), ...tenantScope(actor), ...LIVE },
      { $set: { estimatedPortions: portions, updatedBy: actor.userId, updatedAt: new Date() } },
      // `raw`: the updated record comes as its bytes (bson's raw sub-document) for decodeDocument. A server
      // error's nested fields would come raw too; this update has no unique key or validator to fail on.
      { returnDocument: 'after', raw: true },
    );
    if (!bytes) throw notFound(id);
    return this.answered(storedMenu(bytes));
  }

  /**
   * What a read answers, from the stored record: mongoose's schema defaults
   * and the `id` a document would add. Reads skip mongoose documents (lean),
   * whose building was the largest cost of a menu read after the database.
   */
  private answered(stored: StoredMenu): MealMenu {
    const menu = this.withDefaults(stored);
    const date = menu.date as unknown;
    if (date instanceof Date) menu.date = calendarDayOf(date) ?? menu.date;
    return Object.assign(menu, { id: menu._id.toHexString() });
  }

  /**
   * Soft or hard, decided on the stored record (service-description section 3):
   * with a `deletedAt` field it is soft-deleted, without one it is removed.
   * Mongoose fills the schema default (null) when it loads a document, so the
   * raw record is read through the native collection to see the field itself.
   */
  async delete(actor: Actor, id: string): Promise<DeleteMealMenuResult> {
    const scope = { _id: toObjectId(id), ...tenantScope(actor) };
    const stored = await this.model.collection.findOne(scope, { projection: { deletedAt: 1, tenant_id: 1 } });
    // Already soft-deleted counts as gone.
    if (!stored || stored.deletedAt != null) throw notFound(id);
    // Not answered (no GraphQL field): it tells the audit trail whose menu it was.
    const tenant_id = typeof stored.tenant_id === 'string' ? stored.tenant_id : undefined;

    if ('deletedAt' in stored) {
      // The filter repeats the decision, so a concurrent delete makes this one a 404.
      const menu = await this.model.findOneAndUpdate(
        { ...scope, deletedAt: trusted({ $eq: null, $exists: true }) },
        { $set: { deletedAt: new Date(), updatedBy: actor.userId } },
        { returnDocument: 'after' },
      );
      if (!menu?.deletedAt) throw notFound(id);
      return { id, mode: DeleteMode.soft, deletedAt: menu.deletedAt, tenant_id };
    }

    const { deletedCount } = await this.model.deleteOne({ ...scope, deletedAt: trusted({ $exists: false }) });
    if (deletedCount === 0) throw notFound(id);
    return { id, mode: DeleteMode.hard, deletedAt: null, tenant_id };
  }
}
