import { graphql, type GraphQLSchema } from 'graphql';
import { Authorized, buildSchema, Query, Resolver } from 'type-graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/auth/actor.js';
import { authChecker } from '../../src/auth/auth-checker.js';
import { CurrentActor } from '../../src/auth/current-actor.decorator.js';
import { errors } from '../../src/errors/index.js';

/** `@CurrentActor()` hands the caller to a resolver, or refuses with 401. */

@Resolver()
class ProbeResolver {
  @Query(() => String)
  whoAmI(@CurrentActor() actor: Actor): string {
    return actor.userId;
  }

  @Authorized('menus:write')
  @Query(() => String)
  writeMenus(): string {
    return 'ok';
  }
}

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildSchema({ resolvers: [ProbeResolver], authChecker });
});

const member: Actor = { userId: 'u-7', tenantId: 't', roles: ['member'], permissions: new Set(['menus:read']), via: { kind: 'jwt' } };

async function run(query: string, context: object) {
  const result = await graphql({ schema, source: query, contextValue: { actor: null, ...context } });
  return { data: result.data, code: result.errors?.[0]?.extensions?.code, message: result.errors?.[0]?.message };
}

describe('@CurrentActor()', () => {
  it('injects the authenticated caller', async () => {
    expect((await run('{ whoAmI }', { actor: member })).data).toEqual({ whoAmI: 'u-7' });
  });

  it('refuses an anonymous caller with UNAUTHENTICATED', async () => {
    expect((await run('{ whoAmI }', {})).code).toBe('UNAUTHENTICATED');
  });

  it('refuses with the credential\'s own error when one was refused', async () => {
    expect((await run('{ whoAmI }', { credentialError: errors.unauthenticated('Access token expired') })).message).toBe('Access token expired');
  });
});

describe('@Authorized(permission) on a resolver', () => {
  it('refuses a caller without the permission with FORBIDDEN naming it', async () => {
    expect(await run('{ writeMenus }', { actor: member })).toMatchObject({ code: 'FORBIDDEN', message: "You do not have the permission 'menus:write'" });
  });
});
