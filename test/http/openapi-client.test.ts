import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * A REST client generated from the served OpenAPI document, as a frontend
 * team would make one: openapi-typescript writes the types of every path,
 * a small client over openapi-fetch compiles against them with the
 * project's compiler options (and a client's mistakes do not), then runs
 * against the service.
 */

const root = path.resolve('.');
// Under the repository, so `openapi-fetch` resolves from node_modules; .generated/ is not committed.
const outputDir = path.join(root, '.generated/openapi-client');
const typesFile = path.join(outputDir, 'api.ts');
const clientFile = path.join(outputDir, 'client.ts');

const clientSource = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

export type MealMenu = components['schemas']['MealMenu'];

export function adminClient(baseUrl: string, token: string) {
  return createClient<paths>({ baseUrl: \`\${baseUrl}/api/v1\`, headers: { authorization: \`Bearer \${token}\` } });
}

/** Creates a menu, reads it back, and asks for a refused portion count: the three answers, typed. */
export async function menuRoundTrip(baseUrl: string, token: string) {
  const client = adminClient(baseUrl, token);
  const created = await client.POST('/restaurant/meal-menus', { body: { name: 'Typed lunch', date: '2030-01-18', mealType: 'lunch', estimatedPortions: 12 } });
  if (!created.data) throw new Error(\`create refused: \${created.error?.detail}\`);
  const read = await client.GET('/restaurant/meal-menus/{id}', { params: { path: { id: created.data.id } } });
  const menu: MealMenu | undefined = read.data;
  const portions: number | null | undefined = menu?.estimatedPortions;
  const refused = await client.PATCH('/restaurant/meal-menus/{id}/estimated-portions/{portions}', { params: { path: { id: created.data.id, portions: -1 } } });
  return { id: created.data.id, createdStatus: created.response.status, portions, refusedStatus: refused.response.status, refusedFields: refused.error?.errors?.map((error) => error.field) };
}
`;

/** What a client could get wrong, each expected to stop the compiler. */
const mistakes: Record<string, { code: number; message: RegExp; source: string }> = {
  'a path the API does not have': {
    code: 2345,
    message: /"\/restaurant\/meal-menu\/\{id\}"/,
    source: `await client.GET('/restaurant/meal-menu/{id}', { params: { path: { id: 'x' } } });`,
  },
  'a body without a required field': {
    code: 2322,
    message: /Property 'mealType' is missing/,
    source: `await client.POST('/restaurant/meal-menus', { body: { name: 'x', date: '2030-01-18' } });`,
  },
  'a misspelt field of an answer': {
    code: 2551,
    message: /Property 'estimatedPortion' does not exist/,
    source: `const read = await client.GET('/restaurant/meal-menus/{id}', { params: { path: { id: 'x' } } });\nexport const portions = read.data?.estimatedPortion;`,
  },
};

type Diagnostic = { file: string; code: number; message: string };

function compile(files: Record<string, string>): Diagnostic[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error('cannot read tsconfig.json');
  const options = { ...parsed.options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => file in files || fileExists(file);
  host.readFile = (file) => files[file] ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) => (file in files ? ts.createSourceFile(file, files[file]!, language) : getSourceFile(file, language, ...rest));
  const program = ts.createProgram({ rootNames: [clientFile, ...Object.keys(files)], options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
    file: diagnostic.file ? path.relative(root, diagnostic.file.fileName) : '',
    code: diagnostic.code,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  }));
}

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: 'tenant-openapi-client', roles: ['admin'] });
  // The types of the document as served. A field with a default may be left out of a body: not required
  // (openapi-typescript would otherwise require it; docs/api.md gives the same flag).
  const types = astToString(await openapiTS(new URL(`${app.baseUrl}/api/v1/openapi.json`), { defaultNonNullable: false }));
  await rm(outputDir, { recursive: true, force: true });
  await mkdir(outputDir, { recursive: true });
  await writeFile(typesFile, types);
  await writeFile(clientFile, clientSource);
}, 60_000);
afterAll(() => app?.close());

describe('a client generated from the OpenAPI document (openapi-typescript, openapi-fetch)', () => {
  it('compiles with the project compiler options', () => {
    expect(compile({})).toEqual([]);
  }, 60_000);

  it('does not compile with a client mistake', () => {
    const names = Object.keys(mistakes);
    const header = `import { adminClient } from './client.js';\nconst client = adminClient('http://localhost:4000', 'token');\n`;
    const files = Object.fromEntries(names.map((name, index) => [path.join(outputDir, `mistake-${index}.ts`), `${header}${mistakes[name]!.source}\n`]));
    const diagnostics = compile(files);
    expect(diagnostics.filter(({ file }) => !file.includes('mistake-'))).toEqual([]);
    names.forEach((name, index) => {
      const own = diagnostics.filter(({ file }) => file.endsWith(`mistake-${index}.ts`));
      expect(own, name).toContainEqual(expect.objectContaining({ code: mistakes[name]!.code, message: expect.stringMatching(mistakes[name]!.message) }));
    });
  }, 60_000);

  it('runs its calls against the service: a create (201), a read, and a refusal with the field it names', async () => {
    const { outputText } = ts.transpileModule(clientSource, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    const runnable = path.join(outputDir, 'client.mjs');
    await writeFile(runnable, outputText);
    const client = (await import(/* @vite-ignore */ pathToFileURL(runnable).href)) as { menuRoundTrip: (baseUrl: string, token: string) => Promise<Record<string, unknown>> };
    const outcome = await client.menuRoundTrip(app.baseUrl, admin.token);
    expect(outcome).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), createdStatus: 201, portions: 12, refusedStatus: 400, refusedFields: ['portions'] });
  });
});
