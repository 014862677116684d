import { isObjectType } from 'graphql';
import { buildSchema, Query, Resolver } from 'type-graphql';
import { describe, expect, it } from 'vitest';
import { User, UserModel } from '../../src/users/user.model.js';

/** The user record never carries its password hash out of the database. */

@Resolver()
class UserProbeResolver {
  @Query(() => User, { nullable: true })
  someone(): User | null {
    return null;
  }
}

describe('the User type', () => {
  it('has no password or hash field in GraphQL', async () => {
    const schema = await buildSchema({ resolvers: [UserProbeResolver] });
    const type = schema.getType('User');
    const fields = isObjectType(type) ? Object.keys(type.getFields()) : [];
    expect(fields.filter((field) => /password|hash/i.test(field))).toEqual([]);
  });

  it('leaves the hash out of queries unless asked for (select: false)', () => {
    expect(UserModel.schema.path('passwordHash').options.select).toBe(false);
  });

  it('keeps emails unique per tenant among users not deleted, case-insensitively', () => {
    // deletedAt in the key: live users share null, a deleted one its own instant (user.model.ts).
    const emailIndex = UserModel.schema.indexes().find(([keys]: [Record<string, unknown>, unknown]) => Object.keys(keys).join() === 'tenant_id,email,deletedAt');
    expect(emailIndex).toEqual([{ tenant_id: 1, email: 1, deletedAt: 1 }, expect.objectContaining({ unique: true, collation: { locale: 'en', strength: 2 } })]);
  });
});
