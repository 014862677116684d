import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOperation, SURFACES } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * The OpenAPI document is OpenAPI 3.1 and one thing with the schema lookup:
 * each component is exactly what `GET /schemas/{name}` (and the `schema`
 * query) answers, the bodies and answers refer to those components, and
 * Redocly CLI's recommended ruleset finds nothing in the served document.
 */

const execFileAsync = promisify(execFile);
const REF_PREFIX = '#/components/schemas/';

type Json = Record<string, any>;

let app: TestApp;
let admin: TestUser;
let served: string;
let document: Json;

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: 'tenant-openapi-document', roles: ['admin'] });
  const response = await fetch(`${app.baseUrl}/api/v1/openapi.json`);
  served = await response.text();
  document = JSON.parse(served);
});
afterAll(() => app?.close());

/** Every `$ref` in a value, with where it is. */
function refsIn(value: unknown, at = '#'): { at: string; ref: string }[] {
  if (Array.isArray(value)) return value.flatMap((inner, index) => refsIn(inner, `${at}/${index}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === '$ref' && typeof inner === 'string' ? [{ at, ref: inner }] : refsIn(inner, `${at}/${key}`)));
}

const operations = () =>
  Object.entries(document.paths as Json).flatMap(([route, item]) =>
    Object.entries(item as Json).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${route}`, operation: operation as Json })),
  );

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with a licence, and Redocly CLI (recommended ruleset) reports no error and no warning', async () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Proprietary' });
    const dir = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, served);
      const cli = path.resolve('node_modules/.bin/redocly');
      const { stdout } = await execFileAsync(cli, ['lint', file, '--config', path.resolve('schema/redocly.yaml'), '--format', 'json'], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      });
      const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
      const problems = report.problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('gives every operation a summary, a sentence made of its name', () => {
    expect(operations().filter(({ operation }) => typeof operation.summary !== 'string' || operation.summary.length === 0).map(({ name }) => name)).toEqual([]);
    expect(document.paths['/api-keys/{id}'].patch.summary).toBe('Update API key');
    expect(document.paths['/api-keys'].get.summary).toBe('List API keys');
    expect(document.paths['/restaurant/meal-menus/{id}'].get.summary).toBe('Get meal menu');
  });

  it('describes a custom scalar parameter by its format and keeps its description', () => {
    const from = document.paths['/audit-events'].get.parameters.find((parameter: Json) => parameter.name === 'from');
    expect(from.schema).toEqual({ type: 'string', format: 'date-time', description: 'Only events at or after this instant (inclusive).' });
  });

  it('says nothing in OpenAPI 3.0 words: no `nullable`, a null type instead', () => {
    expect(served).not.toMatch(/"nullable"/);
    expect(document.components.schemas.MealMenu.properties.deletedAt.type).toEqual(['string', 'null']);
  });

  it('refers only to components it has, and every body is its mutation\'s <Mutation>Input component', () => {
    const components = document.components.schemas as Json;
    const dangling = refsIn(document).filter(({ ref }) => !ref.startsWith(REF_PREFIX) || !(ref.slice(REF_PREFIX.length) in components));
    expect(dangling).toEqual([]);
    const bodies = operations().filter(({ operation }) => operation.requestBody);
    expect(bodies.length).toBeGreaterThan(15);
    for (const { name, operation } of bodies) {
      const expected = `${REF_PREFIX}${operation.operationId[0].toUpperCase()}${operation.operationId.slice(1)}Input`;
      expect([name, operation.requestBody.content['application/json'].schema], name).toEqual([name, { $ref: expected }]);
    }
    // A path parameter is not a body field: PATCH /access-control/users/{id} takes no `id` in its body.
    expect(Object.keys(components.UpdateUserInput.properties)).not.toContain('id');
    expect(components.UpdateUserInput.additionalProperties).toBe(false);
  });

  it('answers records as their components', () => {
    const answer = (route: string, method: string, status = '200') => document.paths[route][method].responses[status].content['application/json'].schema;
    expect(answer('/api-keys/{id}', 'get')).toEqual({ $ref: `${REF_PREFIX}ApiKey` });
    expect(answer('/access-control/users', 'post', '201')).toEqual({ $ref: `${REF_PREFIX}User` });
    expect(answer('/restaurant/meal-menus', 'get')).toEqual({ $ref: `${REF_PREFIX}MealMenuPage` });
  });
});

describe.each(SURFACES)('components and the schema lookup over %s', (surface) => {
  const lookup = async (schemaName: string) =>
    (
      await callOperation(
        app,
        surface,
        {
          rest: { method: 'GET', path: `/schemas/${encodeURIComponent(schemaName)}` },
          graphql: { query: 'query($schemaName: String!) { schema(schemaName: $schemaName) }', variables: { schemaName } },
        },
        { token: admin.token },
      )
    ).data;

  it('has a component for every name the lookup lists, and only the problem+json schema besides', async () => {
    const outcome = await callOperation(app, surface, { rest: { method: 'GET', path: '/schemas' }, graphql: { query: '{ schemaNames }' } }, { token: admin.token });
    const names = outcome.data as string[];
    expect(names.length).toBeGreaterThan(50);
    expect(Object.keys(document.components.schemas).sort()).toEqual([...names, 'Problem'].sort());
  });

  it('answers each name exactly as its component', async () => {
    const names = Object.keys(document.components.schemas).filter((name) => name !== 'Problem');
    const differing: string[] = [];
    for (const name of names) {
      const answered = await lookup(name);
      if (!isDeepStrictEqual(answered, document.components.schemas[name])) differing.push(name);
    }
    expect(differing).toEqual([]);
    expect(await lookup('CreateUserInput')).toEqual(document.components.schemas.CreateUserInput);
  });
});
