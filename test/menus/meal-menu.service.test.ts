import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/auth/index.js';
import { serviceModelsOnEngine } from '../support/models-on-engine.js';
import { MealMenuModel, MealMenuRecords, MealMenuService, MealType } from '../../src/menus/index.js';

/**
 * The portions update writes through the driver, so the schema's own rule
 * for the field (min 0, an integer) is checked by the service itself. Over
 * HTTP the argument validation refuses such values first; here the service
 * is called directly to show the schema still has the last word.
 */

serviceModelsOnEngine('meal_menu_service_test');

const actor: Actor = { userId: 'u1', tenantId: 't1', permissions: new Set(['*']), roles: [], via: { kind: 'jwt' } };

describe('MealMenuService.updateEstimatedPortions', () => {
  it.each([
    ['a negative number', -1],
    ['a fraction', 1.5],
  ])('refuses %s by the schema and changes nothing', async (_why, portions) => {
    const menu = await MealMenuModel.create({ name: 'N', date: '2026-01-01', mealType: MealType.lunch, estimatedPortions: 3, tenant_id: 't1', createdBy: 'u1', updatedBy: 'u1' });
    const before = await MealMenuModel.collection.findOne({ _id: menu._id });
    await expect(new MealMenuService(new MealMenuRecords()).updateEstimatedPortions(actor, menu.id, portions)).rejects.toMatchObject({
      name: 'ValidationError',
      errors: { estimatedPortions: expect.anything() },
    });
    expect(await MealMenuModel.collection.findOne({ _id: menu._id })).toEqual(before);
  });
});
