import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * The two in-browser front doors, in a real browser: Debian's chromium,
 * headless, driven by playwright-core. CI installs chromium (.ci/run); where
 * it is missing these tests are skipped, and say so.
 */
const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) {
  console.warn(
    `browser tests SKIPPED: Debian's chromium is not installed (${CHROMIUM} missing); ` +
      'install it with `apt-get install -y --no-install-recommends chromium` (CI does, in .ci/run)',
  );
}

/** Every browser step (a navigation, a wait, a click) ends within this. */
const STEP_MS = 15_000;
const SCREENSHOTS = join(process.cwd(), 'test-results', 'browser');

describe.skipIf(!HAS_CHROMIUM)('in a real browser (headless chromium)', () => {
  let app: TestApp;
  let admin: TestUser;
  let browser: Browser | undefined;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    app = await startTestApp();
    admin = await app.createUser({ tenantId: null });
    // launch() starts chromium on a new empty profile of its own (and refuses a --user-data-dir).
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: STEP_MS,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /**
   * A page in a fresh context; `external` collects (and blocks) every request that leaves the test
   * server; `cspViolations` every Content-Security-Policy refusal the page meets (the DOM event and
   * chromium's console report: a refused script, style, image, font, frame or connection).
   */
  async function newPage(): Promise<{ page: Page; external: string[]; cspViolations: string[] }> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    page.setDefaultNavigationTimeout(STEP_MS);
    // The pages must work offline: any request that leaves the test server fails the test.
    const external: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(app.baseUrl) || url.startsWith('data:')) return route.continue();
      external.push(url);
      return route.abort();
    });
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await page.exposeFunction('reportCspViolation', (text: string) => cspViolations.push(text));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const report = (window as unknown as { reportCspViolation(text: string): void }).reportCspViolation;
        report(`${event.effectiveDirective} refused ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`);
      });
    });
    return { page, external, cspViolations };
  }

  it('Swagger UI lists the routes, authorizes with a bearer token and runs a call', async () => {
    const { page, external, cspViolations } = await newPage();
    try {
      await page.goto(`${app.baseUrl}/api/v1/docs/`);
      await page.locator('.opblock').first().waitFor();
      const paths = await page.locator('.opblock-summary-path').evaluateAll((els) => els.map((el) => el.getAttribute('data-path')));
      expect(paths).toEqual(
        expect.arrayContaining([
          '/restaurant/meal-menus/{id}/estimated-portions/{portions}',
          '/access-control/users',
          '/api-keys/{id}/revoke',
          '/schemas/{schemaName}',
          '/access-control/permissions',
        ]),
      );

      await page.screenshot({ path: join(SCREENSHOTS, 'swagger-ui-list.png'), fullPage: false });

      // Authorize: the bearerAuth scheme of the dialog.
      await page.locator('.auth-wrapper .authorize').first().click();
      const dialog = page.locator('.modal-ux');
      const bearer = dialog.locator('.auth-container').filter({ hasText: 'bearerAuth' });
      await bearer.locator('input').fill(admin.token);
      await bearer.locator('button.authorize').click();
      await bearer.locator('button', { hasText: 'Logout' }).waitFor();
      await bearer.locator('button.btn-done').click();
      await dialog.waitFor({ state: 'detached' });

      // GET /access-control/permissions: Try it out, Execute, a 200 in the page.
      const operation = page.locator('.opblock-get').filter({
        has: page.locator('.opblock-summary-path[data-path="/access-control/permissions"]'),
      });
      await operation.locator('.opblock-summary-control').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).click();
      const live = operation.locator('.live-responses-table');
      const answer = live.locator('tr.response');
      await answer.waitFor();
      expect((await answer.locator('.response-col_status').innerText()).trim()).toBe('200');
      const body = await answer.locator('.response-col_description .microlight').first().innerText();
      expect(body).toContain('menus:read');
      // The curl Swagger UI shows carries the credential as a bearer token.
      expect(await operation.locator('.curl-command').innerText()).toContain(`Authorization: Bearer ${admin.token}`);
      await operation.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'swagger-ui.png'), fullPage: false });
      // Offline: nothing was fetched from anywhere but the service.
      expect(external).toEqual([]);
      // The Content-Security-Policy refused nothing the page does.
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('GraphiQL runs a query with the Authorization header of its Headers tab, and keeps the header', async () => {
    const { page, external, cspViolations } = await newPage();
    try {
      await page.goto(`${app.baseUrl}/graphiql`);
      await page.locator('.graphiql-container').waitFor();
      await expect.poll(() => page.locator('#graphiql-hint').innerText(), { timeout: STEP_MS }).toContain(
        '{"Authorization": "Bearer <token or API key>"}',
      );

      const response = page.locator('.graphiql-response');
      const headersEditor = '.graphiql-editor-tool[aria-label="Headers"] .graphiql-editor:not(.hidden)';

      // Without a credential the service refuses the query.
      await typeInto(page, '.graphiql-query-editor', '{ permissions }');
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(() => response.innerText(), { timeout: STEP_MS }).toContain('UNAUTHENTICATED');

      // The Headers tab, then its editor: the credential; run again.
      await page.locator('.graphiql-editor-tools button[data-name="headers"]').click();
      const headers = JSON.stringify({ Authorization: `Bearer ${admin.token}` });
      await typeInto(page, headersEditor, headers);
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(() => response.innerText(), { timeout: STEP_MS }).toContain('menus:read');
      const text = await response.innerText();
      expect(text).toContain('"permissions"');
      expect(text).not.toContain('"errors"');
      await page.screenshot({ path: join(SCREENSHOTS, 'graphiql.png'), fullPage: false });

      // shouldPersistHeaders: the headers are stored (GraphiQL writes them 500 ms after the last
      // edit), and a reload shows them again in the Headers tab.
      const stored = () => page.evaluate(() => localStorage.getItem('graphiql:headers'));
      await expect.poll(stored, { timeout: STEP_MS }).toBe(headers);
      await page.reload();
      await expect.poll(() => editorText(page, headersEditor), { timeout: STEP_MS }).toBe(headers);
      // Offline: nothing was fetched from anywhere but the service.
      expect(external).toEqual([]);
      // The Content-Security-Policy refused nothing the page does.
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('GraphiQL runs a subscription over WebSocket with the Headers tab\'s Authorization, and shows an event of a change made meanwhile', async () => {
    const { page, external, cspViolations } = await newPage();
    try {
      await page.goto(`${app.baseUrl}/graphiql`);
      await page.locator('.graphiql-container').waitFor();
      await page.locator('.graphiql-editor-tools button[data-name="headers"]').click();
      await typeInto(page, '.graphiql-editor-tool[aria-label="Headers"] .graphiql-editor:not(.hidden)', JSON.stringify({ Authorization: `Bearer ${admin.token}` }));
      await typeInto(page, '.graphiql-query-editor', 'subscription { events(types: ["api-keys.create"]) { id type } }');
      await page.locator('.graphiql-execute-button').click();
      const response = page.locator('.graphiql-response');
      // Keys are created through the API until one's event shows (the stream may open after the first).
      let made = 0;
      await expect
        .poll(
          async () => {
            const created = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: `graphiql ${made++}`, scopes: ['menus:read'] } });
            expect(created.status).toBe(201);
            return response.innerText();
          },
          { timeout: STEP_MS, interval: 500 },
        )
        .toContain('api-keys.create');
      expect(await response.innerText()).not.toContain('"errors"');
      // Offline (the WebSocket client is a file of the service) and within the Content-Security-Policy.
      expect(external).toEqual([]);
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('the landing page links the doors, and its GraphiQL link opens the IDE', async () => {
    const { page, external, cspViolations } = await newPage();
    try {
      await page.goto(`${app.baseUrl}/`);
      const links = await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(links).toEqual(['/graphql', '/graphiql', '/api/v1/docs/', '/api/v1/openapi.json', '/healthz', '/readyz']);
      await page.screenshot({ path: join(SCREENSHOTS, 'landing.png'), fullPage: false });
      await page.getByRole('link', { name: 'GraphQL in GraphiQL' }).click();
      await page.locator('.graphiql-container').waitFor();
      // Offline: nothing was fetched from anywhere but the service.
      expect(external).toEqual([]);
      // The Content-Security-Policy refused nothing the page does.
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it('the front door signs in for the tab: GraphiQL and Swagger UI send its token without pasting, and sign-out ends the session', async () => {
    const { page, external, cspViolations } = await newPage();
    // Every page asks for an icon: none of the three answers 404.
    const notFound: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 404) notFound.push(response.url());
    });
    try {
      await page.goto(`${app.baseUrl}/`);
      const status = page.locator('#session-status');
      // A wrong password: the service's refusal, in the page; still signed out.
      await page.getByLabel('Email').fill(admin.email);
      await page.getByLabel('Password').fill(`${admin.password}-wrong`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => status.innerText(), { timeout: STEP_MS }).toContain('Invalid email or password');
      expect(await page.locator('#signed-in').isHidden()).toBe(true);

      await page.getByLabel('Password').fill(admin.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#signed-in').waitFor();
      expect(await page.locator('#signed-in-email').innerText()).toBe(admin.email);
      expect(await page.locator('#sign-in-form').isHidden()).toBe(true);
      // The token is the tab's (sessionStorage), never the browser's (localStorage).
      const stored = await page.evaluate(() => ({ session: { ...sessionStorage }, local: { ...localStorage } }));
      const token = (JSON.parse(Object.values(stored.session)[0] ?? '{}') as { accessToken?: string }).accessToken ?? '';
      expect(token).toMatch(/^ey/);
      expect(JSON.stringify(stored.local)).not.toContain(token);
      await page.screenshot({ path: join(SCREENSHOTS, 'front-door-signed-in.png'), fullPage: false });

      // GraphiQL: its default query (me) runs with the token, nothing pasted; GraphiQL keeps it (headers, history) in the tab only.
      await page.getByRole('link', { name: 'GraphQL in GraphiQL' }).click();
      await page.locator('.graphiql-container').waitFor();
      await page.locator('.graphiql-execute-button').click();
      const response = page.locator('.graphiql-response');
      await expect.poll(() => response.innerText(), { timeout: STEP_MS }).toContain(admin.email);
      expect(await response.innerText()).not.toContain('"errors"');
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(JSON.stringify(await page.evaluate(() => ({ ...localStorage })))).not.toContain(token);

      // Swagger UI: GET /auth/me, Try it out, Execute: 200, without the Authorize dialog.
      await page.goto(`${app.baseUrl}/api/v1/docs/`);
      const operation = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/auth/me"]') });
      await operation.locator('.opblock-summary-control').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).click();
      const answer = operation.locator('.live-responses-table tr.response');
      await answer.waitFor();
      expect((await answer.locator('.response-col_status').innerText()).trim()).toBe('200');
      expect(await answer.locator('.response-col_description .microlight').first().innerText()).toContain(admin.email);

      // Sign out at the front door: the session ends on the server, and the tab forgets the token.
      await page.goto(`${app.baseUrl}/`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => status.innerText(), { timeout: STEP_MS }).toBe('Signed out.');
      expect(await page.locator('#sign-in-form').isVisible()).toBe(true);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expect((await app.rest('GET', '/auth/me', { token })).status).toBe(401);

      expect(notFound).toEqual([]);
      expect(external).toEqual([]);
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 120_000);

  it('Apollo Sandbox at /graphql may load its CDN scripts under the Content-Security-Policy, and links GraphiQL', async () => {
    const { page, external, cspViolations } = await newPage();
    try {
      // Offline here (external requests are aborted): what matters is that the CSP lets the page ask for them.
      await page.goto(`${app.baseUrl}/graphql`, { waitUntil: 'load' });
      expect(external).toEqual(expect.arrayContaining([expect.stringMatching(/^https:\/\/embeddable-sandbox\.cdn\.apollographql\.com\//)]));
      await page.getByRole('link', { name: '/graphiql' }).waitFor();
      // Its inline scripts (Apollo's per-render nonce) ran: the embed call failed only for want of the CDN script.
      expect(cspViolations).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 60_000);
});

/**
 * Replaces the text of the CodeMirror editor inside `selector` from the
 * keyboard: a click, select all, then the text as one input (as a paste:
 * typing key by key would meet the editor's auto-closed brackets).
 */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  const editor = page.locator(`${selector} .CodeMirror`).first();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  await expect.poll(() => editorText(page, selector), { timeout: STEP_MS }).toBe(text);
}

/** The text of the CodeMirror editor inside `selector` ('' while there is none). */
async function editorText(page: Page, selector: string): Promise<string> {
  const editors = page.locator(`${selector} .CodeMirror`);
  if ((await editors.count()) === 0) return '';
  return editors.first().evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
}
