import { type GraphQLField, type GraphQLSchema, isEnumType, isObjectType } from 'graphql';
import { buildSchema } from 'type-graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { MealMenuResolver } from '../../src/menus/meal-menu.resolver.js';

/**
 * The GraphQL names are part of the contract (clients and the REST mapping
 * depend on them), so they are pinned here.
 */
let schema: GraphQLSchema;

beforeAll(async () => {
  schema = await buildSchema({ resolvers: [MealMenuResolver], authChecker: () => true, validate: true });
});

/** `name(arg: Type = default, ...): Type`, without descriptions. */
function signature(field: GraphQLField<unknown, unknown>): string {
  const args = field.args.map(
    (a) => `${a.name}: ${String(a.type)}${a.defaultValue !== undefined ? ` = ${JSON.stringify(a.defaultValue)}` : ''}`,
  );
  return `${field.name}(${args.join(', ')}): ${String(field.type)}`;
}

function operation(root: 'Query' | 'Mutation', name: string): string {
  const type = root === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const field = type?.getFields()[name];
  return field ? signature(field) : `(no ${root}.${name})`;
}

function enumValues(name: string): string[] {
  const type = schema.getType(name);
  return isEnumType(type) ? type.getValues().map((v) => v.name) : [];
}

/** An object type's fields as `{ name: 'Type!' }`. */
function fieldTypes(name: string): Record<string, string> {
  const type = schema.getType(name);
  const fields = isObjectType(type) ? Object.values(type.getFields()) : [];
  return Object.fromEntries(fields.map((f) => [f.name, String(f.type)]));
}

describe('the meal menu schema', () => {
  it.each([
    [
      'Query',
      'mealMenus',
      'mealMenus(limit: Int! = 20, cursor: String, includeTotal: Boolean, date: String, mealType: MealType, includeDeleted: Boolean! = false): MealMenuPage!',
    ],
    ['Query', 'mealMenu', 'mealMenu(id: ID!): MealMenu!'],
    ['Mutation', 'updateEstimatedPortions', 'updateEstimatedPortions(id: ID!, portions: Int!): MealMenu!'],
    ['Mutation', 'deleteMealMenu', 'deleteMealMenu(id: ID!): DeleteMealMenuResult!'],
    [
      'Mutation',
      'createMealMenu',
      'createMealMenu(name: String!, description: String, date: String!, mealType: MealType!, items: [MealMenuItemInput!]! = [], estimatedPortions: Int! = 0, tenant_id: String): MealMenu!',
    ],
  ] as const)('has %s.%s as the contract names it', (root, name, expected) => {
    expect(operation(root, name)).toBe(expected);
  });

  it('spells the meal types as the contract does', () => {
    expect(enumValues('MealType')).toEqual(['breakfast', 'lunch', 'dinner', 'snack']);
  });

  it('spells the delete modes as the contract does', () => {
    expect(enumValues('DeleteMode')).toEqual(['soft', 'hard']);
  });

  it('answers lists as items and nextCursor, and totalCount when asked', () => {
    expect(fieldTypes('MealMenuPage')).toEqual({
      items: '[MealMenu!]!',
      nextCursor: 'String',
      // Nullable: counted only when selected (REST: includeTotal=true).
      totalCount: 'Int',
    });
  });

  it('exposes the menu fields, with deletedAt nullable', () => {
    expect(fieldTypes('MealMenu')).toEqual({
      id: 'ID!',
      name: 'String!',
      description: 'String',
      date: 'String!',
      mealType: 'MealType!',
      items: '[MealMenuItem!]!',
      estimatedPortions: 'Int!',
      tenant_id: 'String!',
      createdBy: 'String!',
      updatedBy: 'String!',
      deletedAt: 'DateTimeISO',
      createdAt: 'DateTimeISO!',
      updatedAt: 'DateTimeISO!',
    });
  });
});
