/// <reference path="../test/reliability/autocannon.d.ts" />
import type { AutocannonRequest, RawRequest } from 'autocannon';
import type { Load } from './load.js';
import type { RefreshTokenPool } from './refresh-tokens.js';
import type { Seeded } from './seed.js';

/**
 * The service-level scenarios, in the order each round runs them. A
 * scenario is one or two loads (user creation runs a read load beside it);
 * its target is a ratio, read higher-is-better, to the baseline or to
 * another scenario of the same run.
 */
export interface Target {
  /** Undefined: the ratio is reported, with no target. */
  min?: number;
  /** 'baseline' or the name of the scenario the ratio is taken to. */
  of: string;
}

export interface Scenario {
  name: string;
  /**
   * `service-info`: the same service at LOG_LEVEL=info (one JSON line per request), on the same database;
   * `service-reference`: the same service at warn, on the same database, serving only its own rows;
   * `service-default`: a service started as `npm start` does, its engine inside its own process.
   */
  server: 'baseline' | 'service' | 'service-info' | 'service-reference' | 'service-default';
  load: Load;
  /** Runs at the same time, reported as its own row (no CPU figure: the process is shared). */
  beside?: { name: string; load: Load };
  target?: Target;
}

export interface ScenarioContext {
  serviceUrl: string;
  /** The same service at LOG_LEVEL=info. */
  infoServiceUrl: string;
  /**
   * The same service at warn, serving only the rows the info and default-mode rows are
   * compared with: idle between them, as those two services are (see REFERENCE_READ).
   */
  referenceServiceUrl: string;
  baselineUrl: string;
  accessToken: string;
  seeded: Seeded;
  connections: number;
  /** Distinguishes the emails of users created by this run. */
  runTag: string;
  /** Sign-ins of seeded members, topped up before each round of the refresh scenario. */
  refreshTokens: RefreshTokenPool;
  /** The service in default mode (no MONGODB_URI), seeded as the other; absent: no default-mode rows. */
  defaultMode?: { url: string; accessToken: string; seeded: Seeded };
}

export const BASELINE = 'baseline GET one record';
export const API_KEY_READ_JWT = 'REST GET api-keys/{id}, JWT';
const REST_READ = 'REST GET meal-menus/{id}';
const REST_PATCH = 'REST PATCH estimated-portions';
/**
 * The info and default-mode rows' reference: the same read (and write) on a service at warn on
 * the standalone engine that serves nothing else, as the info and default-mode services serve
 * nothing else. Compared with the first service (busy in every scenario of the round), a
 * service that waits a minute between its rows spent 1.4-1.6x the CPU per read, whatever its
 * log level (bench/README.md, "The info and default-mode rows"): the ratio measured that
 * history, not the log line or the engine's place.
 */
const REFERENCE_READ = `${REST_READ}, reference`;
const REFERENCE_PATCH = `${REST_PATCH}, reference`;

/** The fields SOFA's REST answer for a menu carries, so both surfaces answer the same. */
const MENU_FIELDS = 'id name description date mealType items { name description allergens } estimatedPortions tenant_id createdBy updatedBy deletedAt createdAt updatedAt';

// Issue 34's targets, ratios to the baseline of the same run.
const SINGLE = { min: 0.9, of: 'baseline' };
const WRITE = { min: 0.8, of: 'baseline' };
const LIST = { min: 0.75, of: 'baseline' };

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

/** Reads of one menu each, round-robin over `menus`. */
function menuRead(headers: Record<string, string>, menus: string[]): AutocannonRequest {
  return { method: 'GET', headers, setupRequest: roundRobin(menus, (id, _n, request) => ({ ...request, path: `/api/v1/restaurant/meal-menus/${id}` })) };
}

/** A new portions value each request (so each is a change, and an audit record). */
function portionsPatch(headers: Record<string, string>, menus: string[]): AutocannonRequest {
  return {
    method: 'PATCH',
    headers,
    setupRequest: roundRobin(menus, (id, n, request) => ({ ...request, path: `/api/v1/restaurant/meal-menus/${id}/estimated-portions/${n % 500}` })),
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
  const read = menuRead(jwt, menus);
  const half = Math.max(1, Math.floor(connections / 2));

  return [
    {
      name: BASELINE,
      server: 'baseline',
      load: { url: baselineUrl, requests: [get(jwt, menus, (id) => `/menus/${id}`)], connections, expectedStatus: 200 },
    },
    { name: REST_READ, server: 'service', load: service([read]), target: SINGLE },
    {
      name: 'GraphQL mealMenu(id)',
      server: 'service',
      load: service([graphql(`query($id: ID!) { mealMenu(id: $id) { ${MENU_FIELDS} } }`, (id) => ({ id }), menus, jwt)], { verifyBody: noGraphqlErrors }),
      target: SINGLE,
    },
    { name: REST_PATCH, server: 'service', load: service([portionsPatch(jwt, menus)]), target: WRITE },
    {
      name: 'GraphQL updateEstimatedPortions',
      server: 'service',
      load: service(
        [graphql(`mutation($id: ID!, $portions: Int!) { updateEstimatedPortions(id: $id, portions: $portions) { ${MENU_FIELDS} } }`, (id, n) => ({ id, portions: n % 500 }), menus, jwt)],
        { verifyBody: noGraphqlErrors },
      ),
      target: WRITE,
    },
    { name: 'REST list, a page of 20', server: 'service', load: service([{ method: 'GET', headers: jwt, path: '/api/v1/restaurant/meal-menus?limit=20' }]), target: LIST },
    {
      name: 'GraphQL mealMenus(limit: 20)',
      server: 'service',
      load: service([graphql(`query { mealMenus(limit: 20) { items { ${MENU_FIELDS} } nextCursor } }`, () => ({}), ['-'], jwt)], { verifyBody: noGraphqlErrors }),
      target: LIST,
    },
    ...comparedScenarios(context, read),
    { name: API_KEY_READ_JWT, server: 'service', load: service([get(jwt, seeded.apiKeyIds, (id) => `/api/v1/api-keys/${id}`)]), target: SINGLE },
    {
      name: 'REST GET api-keys/{id}, API key',
      server: 'service',
      load: service([get(key, seeded.apiKeyIds, (id) => `/api/v1/api-keys/${id}`)]),
      target: { min: 0.9, of: API_KEY_READ_JWT },
    },
    {
      // verifyApiKey of the seeded key by the admin: the credential's check and a counted use.
      name: 'REST POST api-keys/verify',
      server: 'service',
      load: service(
        [{ method: 'POST', path: '/api/v1/api-keys/verify', headers: { ...jwt, 'content-type': 'application/json' }, body: JSON.stringify({ key: seeded.apiKeySecret }) }],
        { verifyBody: (body) => body.includes('"code":"VALID"') },
      ),
      target: { min: 0.9, of: API_KEY_READ_JWT },
    },
    {
      // Each request spends a live refresh token of the pool; its answer's token goes back (rotation).
      name: 'REST POST auth/refresh',
      server: 'service',
      load: service([context.refreshTokens.request()], {
        prepare: () => context.refreshTokens.fill(),
        verifyBody: (body) => body.includes('"refreshToken"'),
      }),
      target: { of: API_KEY_READ_JWT },
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
      beside: { name: 'REST GET meal-menus/{id} during user creation', load: service([read], { connections: half }) },
    },
  ];
}

/**
 * The rows compared with the reference service (REFERENCE_READ), measured one after the
 * other: its read, the read at LOG_LEVEL=info (at least 0.95 of it), the read in default mode
 * (its engine inside its process, as `npm start` runs it: at least 0.95), then its write and
 * the write in default mode (at least 0.95). Without a default-mode service: the read rows only.
 */
function comparedScenarios(context: ScenarioContext, read: AutocannonRequest): Scenario[] {
  const on = (url: string, request: AutocannonRequest): Load => ({ url, requests: [request], connections: context.connections, expectedStatus: 200 });
  const jwt = { authorization: `Bearer ${context.accessToken}` };
  const reads: Scenario[] = [
    { name: REFERENCE_READ, server: 'service-reference', load: on(context.referenceServiceUrl, read), target: { of: 'baseline' } },
    // The default level, info, writes a JSON line per request: at most 5% of the read.
    { name: `${REST_READ}, LOG_LEVEL=info`, server: 'service-info', load: on(context.infoServiceUrl, read), target: { min: 0.95, of: REFERENCE_READ } },
  ];
  const mode = context.defaultMode;
  if (!mode) return reads;
  const modeJwt = { authorization: `Bearer ${mode.accessToken}` };
  return [
    ...reads,
    { name: `${REST_READ}, default mode`, server: 'service-default', load: on(mode.url, menuRead(modeJwt, mode.seeded.menuIds)), target: { min: 0.95, of: REFERENCE_READ } },
    { name: REFERENCE_PATCH, server: 'service-reference', load: on(context.referenceServiceUrl, portionsPatch(jwt, context.seeded.menuIds)), target: { of: 'baseline' } },
    { name: `${REST_PATCH}, default mode`, server: 'service-default', load: on(mode.url, portionsPatch(modeJwt, mode.seeded.menuIds)), target: { min: 0.95, of: REFERENCE_PATCH } },
  ];
}

/** The memory scenario's load: a mix of the reads and writes above, both credentials. */
export function mixedLoad(context: ScenarioContext): Load {
  // Not the refresh: its pool is filled only before a round of its own.
  const all = scenarios(context).filter((scenario) => scenario.server === 'service' && !scenario.beside && !scenario.load.prepare);
  return {
    url: context.serviceUrl,
    connections: context.connections,
    expectedStatus: 200,
    verifyBody: noGraphqlErrors,
    requests: all.flatMap((scenario) => scenario.load.requests),
  };
}
