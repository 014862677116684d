import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import { Kind, parse } from 'graphql';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import codegenConfig from '../../codegen.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * Typed clients, proven: GraphQL Code Generator runs with codegen.ts (as
 * `npm run codegen` does, into .generated/gql/); the example client
 * examples/typed-client.ts compiles against its output with the project's
 * compiler options, and mistakes a client could make do not; then the
 * example itself runs an operation of every area against the service,
 * sending the generated documents.
 *
 * The example is outside the root tsconfig (.generated/ exists only after
 * codegen), so this file imports it by a computed path and reaches it untyped:
 * its types are what the compile step checks.
 */

const root = path.resolve('.');
const outputDir = path.join(root, '.generated/gql');
const examplesConfig = path.join(root, 'examples/tsconfig.json');
const exampleFile = path.join(root, 'examples/typed-client.ts');
const operationsDir = path.join(root, 'examples/operations');

/** What a client team could get wrong, each expected to stop the compiler. */
const mistakes: Record<string, { code: number; message: RegExp; source: string }> = {
  'a misspelt field of a result': {
    code: 2551,
    message: /Property 'emial' does not exist on type 'UserFieldsFragment'/,
    source: `const me = await whoAmI(client);\nexport const email: string = me.emial;`,
  },
  'a field the operation does not select': {
    code: 2339,
    message: /Property 'password' does not exist/,
    source: `const { login } = await client(LoginDocument, { email: 'a@b.test', password: 'x' });\nexport const leaked = login.password;`,
  },
  'a variable of the wrong type': {
    code: 2322,
    message: /Type 'number' is not assignable to type 'string'/,
    source: `await client(LoginDocument, { email: 'a@b.test', password: 12345 });`,
  },
  'a missing required variable': {
    code: 2345,
    message: /Property 'password' is missing/,
    source: `await client(LoginDocument, { email: 'a@b.test' });`,
  },
  'a value outside an enum': {
    code: 2322,
    message: /Type '"brunch"' is not assignable to type 'MealType'/,
    source: `await createMealMenu(client, { name: 'x', date: '2030-01-01', mealType: 'brunch' });`,
  },
};

const mistakeHeader = [
  `import { LoginDocument } from '../.generated/gql/graphql.js';`,
  `import { createClient, createMealMenu, whoAmI } from './typed-client.js';`,
  `const client = createClient({ baseUrl: 'http://localhost:4000' });`,
].join('\n');

const mistakeFile = (index: number) => path.join(root, `examples/__mistake-${index}.ts`);

type Diagnostic = { file: string; code: number; message: string };

/** Compiles the example (and in-memory extra files beside it) with examples/tsconfig.json. */
function compile(extraFiles: Record<string, string> = {}): Diagnostic[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(examplesConfig, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error(`cannot read ${examplesConfig}`);
  const host = ts.createCompilerHost(parsed.options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => file in extraFiles || fileExists(file);
  host.readFile = (file) => extraFiles[file] ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) =>
    file in extraFiles ? ts.createSourceFile(file, extraFiles[file], language) : getSourceFile(file, language, ...rest);
  const program = ts.createProgram({ rootNames: [exampleFile, ...Object.keys(extraFiles)], options: parsed.options, host });
  return [...parsed.errors, ...ts.getPreEmitDiagnostics(program)].map((diagnostic) => ({
    file: diagnostic.file ? path.relative(root, diagnostic.file.fileName) : '',
    code: diagnostic.code,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  }));
}

type ExampleModule = Record<string, (...args: any[]) => any>;

let app: TestApp;
let admin: TestUser;
let example: ExampleModule;
let generated: Record<string, unknown>;

beforeAll(async () => {
  // Once per file: codegen, then the service.
  await generate({ ...codegenConfig, cwd: root, silent: true }, true);
  generated = await import(/* @vite-ignore */ pathToFileURL(path.join(outputDir, 'graphql.ts')).href);
  example = await import(/* @vite-ignore */ pathToFileURL(exampleFile).href);
  app = await startTestApp();
  admin = await app.createUser({ tenantId: null });
});
afterAll(() => app?.close());

describe('codegen (codegen.ts, client preset)', () => {
  it('writes the typed documents to .generated/gql/', () => {
    expect(readdirSync(outputDir).sort()).toEqual(['fragment-masking.ts', 'gql.ts', 'graphql.ts', 'index.ts']);
  });

  it('makes a typed document of every client operation', () => {
    const operations = readdirSync(operationsDir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.graphql'))
      .flatMap((file) => parse(readFileSync(path.join(operationsDir, file), 'utf8')).definitions)
      .flatMap((definition) => (definition.kind === Kind.OPERATION_DEFINITION && definition.name ? [definition.name.value] : []));
    expect(operations.length).toBeGreaterThan(10);
    expect(operations.filter((name) => !(`${name}Document` in generated))).toEqual([]);
  });

  it('is ignored by git (generated, not committed)', () => {
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toMatch(/^\/?\.generated\/?$/m);
  });
});

describe('the example client (examples/typed-client.ts)', () => {
  it('compiles against the generated documents with the project compiler options', () => {
    expect(existsSync(exampleFile)).toBe(true);
    expect(compile()).toEqual([]);
  });

  it('does not compile with a client mistake', () => {
    const names = Object.keys(mistakes);
    const files = Object.fromEntries(names.map((name, index) => [mistakeFile(index), `${mistakeHeader}\n${mistakes[name].source}\n`]));
    const diagnostics = compile(files);
    // Only the mistakes fail: the example and the generated code stay clean.
    expect(diagnostics.filter(({ file }) => !file.startsWith('examples/__mistake-'))).toEqual([]);
    names.forEach((name, index) => {
      const own = diagnostics.filter(({ file }) => file === path.relative(root, mistakeFile(index)));
      expect(own, name).toContainEqual(expect.objectContaining({ code: mistakes[name].code, message: expect.stringMatching(mistakes[name].message) }));
    });
  });
});

describe('typed operations of every area against the service', () => {
  const client = (credential?: string) => example.createClient({ baseUrl: app.baseUrl, credential });
  let token: string;

  beforeAll(async () => {
    token = await example.signIn(client(), admin.email, admin.password);
  });

  it('auth: login answers an access token', () => {
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('auth: a wrong password is refused with the GraphQL error code', async () => {
    await expect(example.signIn(client(), admin.email, 'Wr0ngPassword!')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('users: me and users', async () => {
    const me = await example.whoAmI(client(token));
    expect(me).toMatchObject({ id: admin.id, email: admin.email, roles: ['admin'], tenant_id: null, defaultColor: 'bg-blue-500' });
    const page = await example.listUsers(client(token), { email: admin.email.toUpperCase() });
    expect(page).toEqual({ items: [me], nextCursor: null });
  });

  it('meal menus: createMealMenu and mealMenus', async () => {
    const menu = await example.createMealMenu(client(token), {
      name: 'Friday lunch',
      date: '2030-01-18',
      mealType: 'lunch',
      items: [{ name: 'Lentil soup', allergens: ['celery'] }],
      estimatedPortions: 40,
      tenant_id: 'acme',
    });
    expect(menu).toMatchObject({
      name: 'Friday lunch',
      date: '2030-01-18',
      mealType: 'lunch',
      items: [{ name: 'Lentil soup', description: null, allergens: ['celery'] }],
      estimatedPortions: 40,
      tenant_id: 'acme',
      deletedAt: null,
    });
    expect(new Date(menu.createdAt).toISOString()).toBe(menu.createdAt);
    const page = await example.listMealMenus(client(token), { date: '2030-01-18', mealType: 'lunch' });
    expect(page.items.map((item: { id: string }) => item.id)).toEqual([menu.id]);
  });

  it('api keys: createApiKey answers the secret once, apiKeys lists the key, the key is a credential', async () => {
    const created = await example.createApiKey(client(token), { name: 'Kitchen display', scopes: ['menus:read'], rateLimit: 100 });
    expect(created).toMatchObject({ name: 'Kitchen display', status: 'active', scopes: ['menus:read'], rateLimit: 100, usageCount: 0, createdBy: admin.id });
    expect(created.key).toMatch(new RegExp(`^ak_${created.keyId}_`));
    const page = await example.listApiKeys(client(token), { status: 'active' });
    const listed = page.items.find((item: { id: string }) => item.id === created.id);
    expect(listed).toMatchObject({ name: 'Kitchen display', keyId: created.keyId });
    expect(listed).not.toHaveProperty('key');
    const menus = await example.listMealMenus(client(created.key), { date: '2030-01-18' });
    expect(menus.items).toHaveLength(1);
    await expect(example.listUsers(client(created.key))).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('schemas: schemaNames', async () => {
    const names = await example.schemaNames(client(token));
    expect(names).toEqual(expect.arrayContaining(['ApiKey', 'CreateApiKeyInput', 'CreateMealMenuInput', 'MealMenu', 'User']));
    expect(names).toEqual([...names].sort());
  });

  it('audit: auditEvents records what the client did', async () => {
    const page = await example.auditEvents(client(token), { actor: admin.id });
    expect(page.items.map((event: { action: string }) => event.action)).toEqual(['api-keys.create', 'menus.create']);
    expect(page.items[1]).toMatchObject({
      actor: { type: 'user', id: admin.id },
      target: { type: 'MealMenu' },
      tenant_id: 'acme',
      outcome: 'success',
    });
  });
});
