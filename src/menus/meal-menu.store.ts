import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted, type Types } from 'mongoose';
import type { TenantFilter } from '../auth/index.js';
import {
  calendarDayOf,
  collectionPages,
  decodeDocument,
  findPage,
  leanDefaults,
  orStale,
  type Page,
  type PageableModel,
  pathValidator,
  storedVersion,
  toObjectId,
  versionCondition,
} from '../shared/index.js';
import type { MealMenusArgs } from './meal-menu.inputs.js';
import { MealMenu, MealMenuModel } from './meal-menu.model.js';

export type MealMenuDocument = DocumentType<MealMenu>;

/** A menu as read with `lean()`: the stored fields, no mongoose document around them. */
type StoredMenu = Omit<MealMenu, 'id'> & { _id: Types.ObjectId };

/** What a delete decides on: whether the record stores `deletedAt` at all, and its value. */
export interface DeletionState {
  /** The record has the field (a menu created by the service); a legacy record lacks it. */
  storesDeletedAt: boolean;
  deletedAt: Date | null;
  /** Whose menu it is (for the audit trail). */
  tenant_id: string | undefined;
}

/**
 * A live menu: `deletedAt` null. In a query `null` also matches a missing
 * field, so legacy records without `deletedAt` count as live too.
 */
const LIVE = { deletedAt: null } as const;

/**
 * A record the driver answered as its bytes (`raw: true`, typed as a
 * document), decoded by decodeDocument as bson would with the driver's
 * defaults (bson-documents.ts says why it is cheaper): bson decoding the
 * updated menu was about 5% of the bytes a portions update allocated.
 */
const storedMenu = (bytes: object): StoredMenu => decodeDocument(bytes as Uint8Array) as StoredMenu;

/**
 * The reads and writes of meal menus, tuned for the hot paths (lean reads
 * and driver calls, each one measured: see each method). The rules are
 * MealMenuService's; every method takes the tenant scope it gave.
 * Ids reach here already validated as 24-hex (ObjectIdField).
 */
export class MealMenuRecords {
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

  async list(scope: TenantFilter, args: MealMenusArgs): Promise<Page<MealMenu>> {
    const filter = {
      ...scope,
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
  async findLive(scope: TenantFilter, id: string): Promise<MealMenu | null> {
    const menu = (await this.model.collection.findOne({ _id: toObjectId(id), ...scope, ...LIVE })) as StoredMenu | null;
    return menu && this.answered(menu);
  }

  create(menu: Omit<MealMenu, 'id' | 'createdAt' | 'updatedAt'>): Promise<MealMenuDocument> {
    return this.model.create(menu);
  }

  /**
   * The schema's rules for the one field (the same check `runValidators`
   * makes, run on that path alone: path-validator.ts), then one driver
   * findOneAndUpdate that also sets what the schema's timestamps would:
   * mongoose's query building, casting and update validation around a
   * one-field `$set` were about 5% of the service's CPU on this write. Filter
   * values are the validated ObjectId and the caller's own tenant, never
   * client text used as an operator. Null when no live menu matches.
   */
  async setEstimatedPortions(scope: TenantFilter, id: string, portions: number, updatedBy: string): Promise<MealMenu | null> {
    await this.checkPortions(portions);
    const bytes = await this.model.collection.findOneAndUpdate(
      { _id: toObjectId(id), ...scope, ...LIVE, ...versionCondition() },
      { $set: { estimatedPortions: portions, updatedBy, updatedAt: new Date() } },
      // `raw`: the updated record comes as its bytes (bson's raw sub-document) for decodeDocument. A server
      // error's nested fields would come raw too; this update has no unique key or validator to fail on.
      { returnDocument: 'after', raw: true },
    );
    const written = await orStale(bytes, () => this.version(scope, id));
    return written && this.answered(storedMenu(written));
  }

  /** The stored version of a live menu of the scope (an If-Match's 412 or 404: shared/write-precondition.ts). */
  private version(scope: TenantFilter, id: string) {
    return storedVersion(this.model.collection, { _id: toObjectId(id), ...scope, ...LIVE });
  }

  /**
   * The record as stored, read through the native collection: mongoose fills
   * the schema default (null) when it loads a document, which would hide a
   * missing `deletedAt`. Null when there is no such record.
   */
  async deletionState(scope: TenantFilter, id: string): Promise<DeletionState | null> {
    const stored = await this.model.collection.findOne({ _id: toObjectId(id), ...scope }, { projection: { deletedAt: 1, tenant_id: 1 } });
    if (!stored) return null;
    return {
      storesDeletedAt: 'deletedAt' in stored,
      deletedAt: (stored.deletedAt as Date | null | undefined) ?? null,
      tenant_id: typeof stored.tenant_id === 'string' ? stored.tenant_id : undefined,
    };
  }

  /**
   * Sets `deletedAt` on a live menu that stores the field; the filter repeats
   * that condition, so a concurrent delete makes this one find nothing
   * (null). Answers when it was deleted.
   */
  async markDeleted(scope: TenantFilter, id: string, updatedBy: string): Promise<Date | null> {
    const menu = await this.model.findOneAndUpdate(
      { _id: toObjectId(id), ...scope, deletedAt: trusted({ $eq: null, $exists: true }), ...versionCondition() },
      { $set: { deletedAt: new Date(), updatedBy } },
      { returnDocument: 'after' },
    );
    return (await orStale(menu, () => this.version(scope, id)))?.deletedAt ?? null;
  }

  /** Removes a record that lacks `deletedAt` (legacy); false when none matched (gone, or given the field meanwhile). */
  async removeLegacy(scope: TenantFilter, id: string): Promise<boolean> {
    const { deletedCount } = await this.model.deleteOne({ _id: toObjectId(id), ...scope, deletedAt: trusted({ $exists: false }), ...versionCondition() });
    return (await orStale(deletedCount > 0 || null, () => this.version(scope, id))) ?? false;
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
}
