import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { MealMenuModel } from '../../src/menus/meal-menu.model.js';
import { leanDefaults } from '../../src/shared/lean-defaults.js';
import { UserModel } from '../../src/users/user.model.js';

/**
 * The createdAt/updatedAt defaults (src/shared/timestamps.ts) on the real
 * models: records stored without them get the id's time on every path that
 * completes a record, and records that hold them, or are new, are left to
 * what they hold and to mongoose's timestamps. (the areas' API tests run the same
 * records through both surfaces.)
 */
const idAt = new Date('2021-02-03T04:05:06.000Z');
const oldId = () => new Types.ObjectId(Types.ObjectId.generate(idAt.getTime() / 1000));
const stored = new Date('2020-01-01T00:00:00.123Z');

describe('createdAt/updatedAt of a record stored without them', () => {
  it('are the time of its id when mongoose loads it as a document', () => {
    const menu = MealMenuModel.hydrate({ _id: oldId() });
    expect([menu.createdAt, menu.updatedAt]).toEqual([idAt, idAt]);
  });

  it('are the same on a lean record, through applyDefaults and leanDefaults alike', () => {
    const _id = oldId();
    expect(MealMenuModel.applyDefaults({ _id })).toMatchObject({ createdAt: idAt, updatedAt: idAt });
    expect(leanDefaults<object>(MealMenuModel.schema)({ _id })).toMatchObject({ createdAt: idAt, updatedAt: idAt });
  });

  it('give updatedAt the stored createdAt when only updatedAt is missing', () => {
    expect(UserModel.hydrate({ _id: oldId(), createdAt: stored }).updatedAt).toEqual(stored);
  });

  it('leave stored values as they are, and a stored createdAt immutable', () => {
    const user = UserModel.hydrate({ _id: oldId(), createdAt: stored, updatedAt: stored });
    user.set('createdAt', new Date());
    expect([user.createdAt, user.updatedAt]).toEqual([stored, stored]);
  });

  it('give a new document nothing: mongoose timestamps it when saved', () => {
    const user = new UserModel({ email: 'new@example.test' });
    expect([user.createdAt, user.updatedAt]).toEqual([undefined, undefined]);
  });
});
