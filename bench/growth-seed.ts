import type { ReturnModelType } from '@typegoose/typegoose';
import { ObjectId, type Db } from 'mongodb';
import { hashPassword } from '../src/auth/password.js';
import { AuditEventModel } from '../src/audit/audit-event.model.js';
import { MealMenuModel, MealType } from '../src/menus/meal-menu.model.js';
import { UserModel } from '../src/users/user.model.js';
import { searchKeysOf } from '../src/users/user-search.js';

/**
 * The growth part's data, one tenant of its own: menus, users and audit
 * events, written through the driver in batches (`insertMany` of BATCH
 * documents), not through the API, so that 1,000,000 of each take minutes
 * rather than hours.
 * Each document is the models' stored shape: a template made by the model
 * (its defaults, validated, timestamps and version key as mongoose writes
 * them), copied with the fields that differ per record. Users carry their
 * `searchKeys` as the model's save hook would.
 */
export const GROWTH_TENANT = 'bench-growth';
export const GROWTH_ADMIN_EMAIL = 'growth-admin@example.com';
/** Users share a crew word by this many: a search for one matches a page of 20 and a few more, whatever the size. */
export const CREW_SIZE = 25;
/**
 * Documents per insertMany: 2,000 keep each command short. The engine still
 * stalls past the driver's server monitor timeout (30 s) as the users grow:
 * full garbage collections of about 10 s near its heap limit (bench/README.md).
 * The growth part's client waits instead (GROWTH_CLIENT_OPTIONS), and the log
 * gives the longest command.
 */
const BATCH = 2000;

/** No timeout on the monitor's check, or on connecting: a stalled engine is waited for, and its stall shows in the log. */
export const GROWTH_CLIENT_OPTIONS = { connectTimeoutMS: 0 } as const;

export const crewWord = (n: number) => `crew${Math.floor(n / CREW_SIZE)}x`;
export const menuName = (n: number) => `Growth menu ${n}`;

/** The ids and words the growth scenarios take, recorded while the records are written. */
export interface GrowthSeeded {
  adminId: string;
  /** Every menu id of the first phase; then the ids at the sampled positions. */
  menuIds: string[];
  sampledMenuIds: string[];
  /** Record positions sampled evenly over the full size. */
  sampled: number[];
}

type AnyModel = ReturnModelType<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A stored document of `model` made from `data`: defaults applied, validated, timestamps and `__v` as mongoose's insertMany writes them. */
async function storedShape(model: AnyModel, data: Record<string, unknown>): Promise<Record<string, unknown>> {
  const doc = new model(data);
  await doc.validate(); // throws on an invalid template
  const stored: Record<string, unknown> = doc.toObject({ virtuals: false, getters: false });
  const now = new Date();
  if (model.schema.get('timestamps')) Object.assign(stored, { createdAt: now, updatedAt: now });
  const versionKey = model.schema.get('versionKey');
  if (typeof versionKey === 'string') stored[versionKey] = 0;
  delete stored._id;
  return stored;
}

export class GrowthSeeder {
  private readonly seeded: GrowthSeeded;
  private readonly templates: Record<'menu' | 'user' | 'audit', Record<string, unknown>>;
  private readonly sampledSet: Set<number>;
  /** The admin's id is chosen first: every menu and audit event names it. */
  private readonly adminObjectId: ObjectId;
  private written = 0;

  private constructor(
    private readonly db: Db,
    total: number,
    adminId: ObjectId,
    templates: Record<'menu' | 'user' | 'audit', Record<string, unknown>>,
  ) {
    const step = Math.max(1, Math.floor(total / 1000));
    const sampled = Array.from({ length: Math.min(1000, total) }, (_, k) => k * step);
    this.sampledSet = new Set(sampled);
    this.seeded = { adminId: String(adminId), menuIds: [], sampledMenuIds: [], sampled };
    this.templates = templates;
    this.adminObjectId = adminId;
  }

  static async create(db: Db, total: number, password: string): Promise<GrowthSeeder> {
    const adminId = new ObjectId();
    const passwordHash = await hashPassword(password);
    const author = { createdBy: String(adminId), updatedBy: String(adminId) };
    const templates = {
      menu: await storedShape(MealMenuModel, {
        name: menuName(0),
        description: 'Seeded by the bench (growth)',
        date: '2026-01-01',
        mealType: MealType.lunch,
        items: [
          { name: 'Soup of the day', description: 'Tomato and basil', allergens: ['celery'] },
          { name: 'Grilled fish', allergens: ['fish'] },
        ],
        estimatedPortions: 10,
        tenant_id: GROWTH_TENANT,
        ...author,
        deletedAt: null,
      }),
      user: await storedShape(UserModel, { email: GROWTH_ADMIN_EMAIL, passwordHash, firstName: crewWord(0), lastName: 'Growth', roles: ['member'], tenant_id: GROWTH_TENANT }),
      audit: await storedShape(AuditEventModel, {
        actor: { type: 'user', id: String(adminId) },
        tenant_id: GROWTH_TENANT,
        action: 'menus.update',
        target: { type: 'MealMenu', id: String(adminId) },
        changes: ['estimatedPortions'],
        requestId: 'growth-0',
        ip: '127.0.0.1',
        outcome: 'success',
      }),
    };
    return new GrowthSeeder(db, total, adminId, templates);
  }

  get ids(): GrowthSeeded {
    return this.seeded;
  }

  /** Writes records [written, to) of each kind; returns the seconds it took. */
  async growTo(to: number, log: (text: string) => void): Promise<number> {
    const started = performance.now();
    for (const kind of ['menu', 'user', 'audit'] as const) {
      const kindStarted = performance.now();
      const collection = this.db.collection(this.collectionOf(kind));
      let longestMs = 0;
      for (let start = this.written; start < to; start += BATCH) {
        const docs = [];
        for (let n = start; n < Math.min(to, start + BATCH); n++) docs.push(this.record(kind, n));
        const sent = performance.now();
        await collection.insertMany(docs, { ordered: false });
        longestMs = Math.max(longestMs, performance.now() - sent);
        if ((start - this.written) % (BATCH * 100) === 0 && to - this.written > BATCH * 100) log(`growth: ${kind}s ${start.toLocaleString('en-US')} of ${to.toLocaleString('en-US')}...`);
      }
      log(`growth: ${kind}s up to ${to.toLocaleString('en-US')} written in ${((performance.now() - kindStarted) / 1000).toFixed(0)} s (longest insertMany ${(longestMs / 1000).toFixed(1)} s)`);
    }
    this.written = to;
    return (performance.now() - started) / 1000;
  }

  private collectionOf(kind: 'menu' | 'user' | 'audit'): string {
    return { menu: MealMenuModel, user: UserModel, audit: AuditEventModel }[kind].collection.collectionName;
  }

  private record(kind: 'menu' | 'user' | 'audit', n: number): Record<string, unknown> {
    const _id = kind === 'user' && n === 0 ? this.adminObjectId : new ObjectId();
    if (kind === 'menu') {
      if (n < 1000) this.seeded.menuIds.push(String(_id));
      if (this.sampledSet.has(n)) this.seeded.sampledMenuIds.push(String(_id));
      return { ...this.templates.menu, _id, name: menuName(n), estimatedPortions: n % 200 };
    }
    if (kind === 'user') {
      const user = { email: n === 0 ? GROWTH_ADMIN_EMAIL : `growth-${n}@example.com`, firstName: crewWord(n), lastName: 'Growth' };
      return { ...this.templates.user, _id, ...user, roles: [n === 0 ? 'admin' : 'member'], searchKeys: searchKeysOf(user) };
    }
    return { ...this.templates.audit, _id, requestId: `growth-${n}`, at: new Date(), target: { type: 'MealMenu', id: this.seeded.menuIds[n % 1000] ?? null } };
  }
}
