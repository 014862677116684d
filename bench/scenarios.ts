/// <reference path="../test/reliability/autocannon.d.ts" />
import type { AutocannonRequest, RawRequest } from 'autocannon';
import type { Load } from './load.js';
import type { Seeded } from './seed.js';

/**
 * The service-level scenarios, in the order each round runs them. A
 * scenario is one or two loads (user creation runs a read load beside it);
 * its target is a ratio, read higher-is-better, to the baseline or to
 * another scenario of the same run.
 */
export interface Target {
  min: number;
  /** 'baseline' or the name of the scenario the ratio is taken to. */
  of: string;
}

export interface Scenario {
  name: string;
  /** `service-info`: the same service at LOG_LEVEL=info (one JSON line per request), on the same database. */
  server: 'baseline' | 'service' | 'service-info';
  load: Load;
  /** Runs at the same time, reported as its own row (no CPU figure: the process is shared). */
  beside?: { name: string; load: Load };
  target?: Target;
}

export interface ScenarioContext {
  serviceUrl: string;
  /** The same service at LOG_LEVEL=info. */
  infoServiceUrl: string;
  baselineUrl: string;
  accessToken: string;
  seeded: Seeded;
  connections: number;
  /** Distinguishes the emails of users created by this run. */
  runTag: string;
}

export const BASELINE = 'baseline GET one record';
export const API_KEY_READ_JWT = 'REST GET api-keys/{id}, JWT';
const REST_READ = 'REST GET meal-menus/{id}';

/** The fields SOFA's REST answer for a menu carries, so both surfaces answer the same. */
const MENU_FIELDS = 'id name description date mealType items { name description allergens } estimatedPortions tenant_id createdBy updatedBy deletedAt createdAt updatedAt';

const SINGLE = { min: 0.6, of: 'baseline' };
const LIST = { min: 0.4, of: 'baseline' };

/** A GraphQL answer is 200 even when it failed: a body with `errors` is a failure. */
const noGraphqlErrors = (body: string) => !body.includes('"errors"');

/** Each request takes the next id of the list (all connections share the counter). */
function roundRobin(ids: string[], build: (id: string, n: number, request: RawRequest) => RawRequest): AutocannonRequest['setupRequest'] {
  let n = 0;
  return (request) => {
    n += 1;
    return build(ids[n % ids.length], n, request);
  };
}

function graphql(query: string, variables: (id: string, n: number) => Record<string, unknown>, ids: string[], headers: Record<string, string>): AutocannonRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...headers, 'content-type': 'application/json' },
    setupRequest: roundRobin(ids, (id, n, request) => ({ ...request, body: JSON.stringify({ query, variables: variables(id, n) }) })),
  };
}

export function scenarios(context: ScenarioContext): Scenario[] {
  const { serviceUrl, baselineUrl, accessToken, seeded, connections } = context;
  const jwt = { authorization: `Bearer ${accessToken}` };
  const key = { authorization: `Bearer ${seeded.apiKeySecret}` };
  const menus = seeded.menuIds;
  const service = (requests: AutocannonRequest[], extra: Partial<Load> = {}): Load => ({ url: serviceUrl, requests, connections, expectedStatus: 200, ...extra });
  const get = (headers: Record<string, string>, ids: string[], pathOf: (id: string) => string): AutocannonRequest => ({
    method: 'GET',
    headers,
    setupRequest: roundRobin(ids, (id, _n, request) => ({ ...request, path: pathOf(id) })),
  });
  const menuRead = get(jwt, menus, (id) => `/api/v1/restaurant/meal-menus/${id}`);
  const half = Math.max(1, Math.floor(connections / 2));

  return [
    {
      name: BASELINE,
      server: 'baseline',
      load: { url: baselineUrl, requests: [get(jwt, menus, (id) => `/menus/${id}`)], connections, expectedStatus: 200 },
    },
    { name: REST_READ, server: 'service', load: service([menuRead]), target: SINGLE },
    {
      // The service logs at warn; this one, the default info, writes a JSON line per request: at most 5% of the read.
      name: 'REST GET meal-menus/{id}, LOG_LEVEL=info',
      server: 'service-info',
      load: { ...service([menuRead]), url: context.infoServiceUrl },
      target: { min: 0.95, of: REST_READ },
    },
    {
      name: 'GraphQL mealMenu(id)',
      server: 'service',
      load: service([graphql(`query($id: ID!) { mealMenu(id: $id) { ${MENU_FIELDS} } }`, (id) => ({ id }), menus, jwt)], { verifyBody: noGraphqlErrors }),
      target: SINGLE,
    },
    {
      name: 'REST PATCH estimated-portions',
      server: 'service',
      load: service([
        {
          method: 'PATCH',
          headers: jwt,
          setupRequest: roundRobin(menus, (id, n, request) => ({ ...request, path: `/api/v1/restaurant/meal-menus/${id}/estimated-portions/${n % 500}` })),
        },
      ]),
      target: SINGLE,
    },
    {
      name: 'GraphQL updateEstimatedPortions',
      server: 'service',
      load: service(
        [graphql(`mutation($id: ID!, $portions: Int!) { updateEstimatedPortions(id: $id, portions: $portions) { ${MENU_FIELDS} } }`, (id, n) => ({ id, portions: n % 500 }), menus, jwt)],
        { verifyBody: noGraphqlErrors },
      ),
      target: SINGLE,
    },
    { name: 'REST list, a page of 20', server: 'service', load: service([{ method: 'GET', headers: jwt, path: '/api/v1/restaurant/meal-menus?limit=20' }]), target: LIST },
    {
      name: 'GraphQL mealMenus(limit: 20)',
      server: 'service',
      load: service([graphql(`query { mealMenus(limit: 20) { items { ${MENU_FIELDS} } nextCursor } }`, () => ({}), ['-'], jwt)], { verifyBody: noGraphqlErrors }),
      target: LIST,
    },
    { name: API_KEY_READ_JWT, server: 'service', load: service([get(jwt, seeded.apiKeyIds, (id) => `/api/v1/api-keys/${id}`)]), target: SINGLE },
    {
      name: 'REST GET api-keys/{id}, API key',
      server: 'service',
      load: service([get(key, seeded.apiKeyIds, (id) => `/api/v1/api-keys/${id}`)]),
      target: { min: 0.8, of: API_KEY_READ_JWT },
    },
    {
      // verifyApiKey of the seeded key by the admin: the credential's check, a counted use and an audit record.
      name: 'REST POST api-keys/verify',
      server: 'service',
      load: service(
        [{ method: 'POST', path: '/api/v1/api-keys/verify', headers: { ...jwt, 'content-type': 'application/json' }, body: JSON.stringify({ key: seeded.apiKeySecret }) }],
        { verifyBody: (body) => body.includes('"code":"VALID"') },
      ),
      target: { min: 0.9, of: API_KEY_READ_JWT },
    },
    {
      name: 'REST POST access-control/users (Argon2)',
      server: 'service',
      load: service(
        [
          {
            method: 'POST',
            path: '/api/v1/access-control/users',
            headers: { ...jwt, 'content-type': 'application/json' },
            setupRequest: roundRobin(['-'], (_id, n, request) => ({
              ...request,
              body: JSON.stringify({
                email: `bench-new-${context.runTag}-${n}@example.com`,
                password: 'New-Bench-Passw0rd',
                firstName: 'New',
                roles: ['member'],
                createdBy: seeded.adminId,
                updatedBy: seeded.adminId,
              }),
            })),
          },
        ],
        { connections: half, expectedStatus: 201 },
      ),
      beside: { name: 'REST GET meal-menus/{id} during user creation', load: service([menuRead], { connections: half }) },
    },
  ];
}

/** The memory scenario's load: a mix of the reads and writes above, both credentials. */
export function mixedLoad(context: ScenarioContext): Load {
  const all = scenarios(context).filter((scenario) => scenario.server === 'service' && !scenario.beside);
  return {
    url: context.serviceUrl,
    connections: context.connections,
    expectedStatus: 200,
    verifyBody: noGraphqlErrors,
    requests: all.flatMap((scenario) => scenario.load.requests),
  };
}
