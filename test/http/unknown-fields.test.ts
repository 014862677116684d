import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOperation, SURFACES, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * A field the operation does not have is named as unknown (rule `unknown`,
 * the summary says "Unknown field"), with graphql-js's own "Did you mean"
 * suggestion outside production, on both surfaces: REST body fields and
 * GraphQL variables are read by the same code, and an unknown argument
 * written in a GraphQL document gets graphql-js's own answer. Production
 * leaves every suggestion out (it would spell out the schema that
 * introspection keeps hidden there), on both surfaces too.
 */
const TENANT = 'tenant-unknown-fields';
const MENU = { name: 'Lunch', date: '2026-03-03', mealType: 'lunch' };

/** A menu create with an unknown top-level field: a REST body field, a GraphQL argument (only a document can carry one). */
const unknownArgument: Operation = {
  rest: { method: 'POST', path: '/restaurant/meal-menus', body: { ...MENU, nme: 'x' } },
  graphql: { query: 'mutation { createMealMenu(name: "Lunch", date: "2026-03-03", mealType: lunch, nme: "x") { id } }' },
};

/** A user create whose social links carry an unknown key, next to a broken rule; over GraphQL as a variable. */
const unknownNestedField = (admin: TestUser, email: string): Operation => {
  const args = { email, password: 'Str0ng-Pass', firstName: 'Ada', mobile: '12', social: { twiter: 'https://twitter.example.test/ada' }, createdBy: admin.id, updatedBy: admin.id };
  return {
    rest: { method: 'POST', path: '/access-control/users', body: args },
    graphql: {
      query:
        'mutation($email: String!, $password: String!, $firstName: String!, $mobile: String, $social: SocialLinksInput, $createdBy: String!, $updatedBy: String!) { createUser(email: $email, password: $password, firstName: $firstName, mobile: $mobile, social: $social, createdBy: $createdBy, updatedBy: $updatedBy) { id } }',
      variables: args,
    },
  };
};

function useApp(env: Record<string, string> = {}) {
  const world = {} as { app: TestApp; admin: TestUser };
  beforeAll(async () => {
    world.app = await startTestApp({ env });
    world.admin = await world.app.createUser({ tenantId: TENANT, roles: ['admin'] });
  });
  afterAll(() => world.app?.close());
  return world;
}

describe('outside production', () => {
  const world = useApp();

  describe.each(SURFACES)('over %s', (surface) => {
    it('an unknown field inside an input object is named with its path, rule unknown, and a suggestion; the other broken rules too', async () => {
      const outcome = await callOperation(world.app, surface, unknownNestedField(world.admin, `ada.${surface}@example.test`), world.admin);
      const why = JSON.stringify(outcome.raw.body);
      expect([outcome.status, outcome.code], why).toEqual([400, 'BAD_USER_INPUT']);
      expect(outcome.message, why).toBe('Unknown field: social.twiter; invalid value for mobile');
      expect(outcome.fieldErrors, why).toContainEqual({ field: 'social.twiter', rule: 'unknown', message: 'social.twiter is not a field of social. Did you mean "twitter"?' });
      expect(outcome.fieldErrors.map((error) => error.field).sort(), why).toEqual(['mobile', 'social.twiter']);
      expect(await world.app.db.collection('users').countDocuments({ email: `ada.${surface}@example.test` })).toBe(0);
    });

    it('an unknown top-level field gets the suggestion graphql-js gives an unknown argument', async () => {
      const outcome = await callOperation(world.app, surface, unknownArgument, world.admin);
      const why = JSON.stringify(outcome.raw.body);
      expect(outcome.status, why).toBe(400);
      if (surface === 'rest') {
        expect(outcome.message, why).toBe('Unknown field: nme');
        expect(outcome.fieldErrors, why).toEqual([{ field: 'nme', rule: 'unknown', message: 'nme is not a field of this operation. Did you mean "name"?' }]);
      } else {
        expect(outcome.message, why).toBe('Unknown argument "nme" on field "Mutation.createMealMenu". Did you mean "name"?');
      }
    });
  });

  it('an unknown query parameter of a body method is suggested among the switches the route takes, and only those', async () => {
    const refused = async (path: string, field: string) => {
      const response = await world.app.rest('PATCH', path, { token: world.admin.token, body: {} });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      return (response.body.errors as { field: string; rule: string; message: string }[]).find((error) => error.field === field);
    };
    expect(await refused('/api-keys/0123456789abcdef01234567/revoke?dryRn=true', 'dryRn')).toEqual({ field: 'dryRn', rule: 'unknown', message: 'dryRn is not a parameter of this operation. Did you mean "dryRun"?' });
    // An argument of the operation that belongs in the body is no switch: not suggested for the query string.
    expect(await refused('/access-control/users/0123456789abcdef01234567?firstNam=Ada', 'firstNam')).toEqual({ field: 'firstNam', rule: 'unknown', message: 'firstNam is not a parameter of this operation.' });
  });
});

describe('in production', () => {
  const world = useApp({ NODE_ENV: 'production', LOG_LEVEL: 'silent' });

  describe.each(SURFACES)('over %s', (surface) => {
    it('the same refusals carry no suggestion', async () => {
      const nested = await callOperation(world.app, surface, unknownNestedField(world.admin, `prod.${surface}@example.test`), world.admin);
      expect(nested.fieldErrors, JSON.stringify(nested.raw.body)).toContainEqual({ field: 'social.twiter', rule: 'unknown', message: 'social.twiter is not a field of social.' });
      const top = await callOperation(world.app, surface, unknownArgument, world.admin);
      expect(JSON.stringify(top.raw.body)).not.toContain('Did you mean');
      expect(top.status).toBe(400);
    });
  });
});
