import { Router } from 'express';
import { escapeHtml, FAVICON_SVG, SIGNED_IN_STORAGE_KEY, SIGNED_IN_TOKEN_SCRIPT } from './html.js';

export interface LandingLinks {
  /** Apollo Sandbox (loads from Apollo's CDN: needs internet); omitted where Sandbox is off (production). */
  graphqlPath?: string;
  /** The offline GraphQL IDE (use-graphiql.ts). */
  graphiqlPath: string;
  /** Swagger UI (docs.ts). */
  docsPath: string;
  openApiPath: string;
  healthPath: string;
  readyPath: string;
  /** The REST sign-in and sign-out (login, logout) the form calls. */
  signInPath: string;
  signOutPath: string;
}

const ASSETS = '/assets';

const PAGE_CSS = `[hidden] { display: none !important; }
body { font-family: system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #111827; line-height: 1.5; }
h1 { font-size: 1.6rem; margin-bottom: 0.25rem; }
code { background: #f3f4f6; padding: 1px 4px; border-radius: 3px; }
#session { border: 1px solid #d1d5db; border-radius: 8px; padding: 1rem; margin: 1rem 0 1.5rem; }
#sign-in-form { display: grid; grid-template-columns: 6rem 1fr; gap: 0.5rem 0.75rem; align-items: center; }
#sign-in-form input { padding: 0.35rem 0.5rem; border: 1px solid #9ca3af; border-radius: 4px; font: inherit; }
#sign-in-form button, #sign-out { justify-self: start; padding: 0.35rem 1rem; border: 0; border-radius: 4px; background: #1f2937; color: #fff; font: inherit; cursor: pointer; }
#sign-in-form .hint { grid-column: 2; font-size: 0.85rem; color: #6b7280; margin: -0.25rem 0 0; }
#session-status { margin: 0.5rem 0 0; min-height: 1.5em; }
#session-status.refused { color: #b91c1c; }
ul.doors { list-style: none; padding: 0; }
ul.doors li { padding: 0.4rem 0; border-bottom: 1px solid #e5e7eb; }
ul.doors a { font-weight: 600; }
ul.doors .note { color: #4b5563; }
`;

/**
 * `GET /`: the service's front door. It links the in-browser doors and signs
 * you in for this tab: the form calls the REST login, keeps the access token
 * in sessionStorage (not localStorage: gone with the tab), and GraphiQL and
 * Swagger UI send it from there; sign-out calls logout (the session ends on
 * the server) and forgets it. No inline script (the local CSP): the page's
 * script and style are files of their own.
 */
export function useLandingPage(links: LandingLinks): Router {
  const router = Router();
  const doors: Array<[string, string, string]> = [
    ...(links.graphqlPath ? [[links.graphqlPath, 'GraphQL in Apollo Sandbox', 'loads from Apollo’s CDN: needs internet'] as [string, string, string]] : []),
    [links.graphiqlPath, 'GraphQL in GraphiQL', 'offline IDE, served from local files'],
    [`${links.docsPath}/`, 'REST in Swagger UI', 'served from local files'],
    [links.openApiPath, 'OpenAPI 3 document', 'of the REST surface'],
    [links.healthPath, 'Liveness', 'the process answers'],
    [links.readyPath, 'Readiness', 'the database answers too (503 while it does not)'],
  ];
  const items = doors
    .map(([href, title, note]) => `    <li><a href="${escapeHtml(href)}">${escapeHtml(title)}</a> <code>${escapeHtml(href)}</code> <span class="note">— ${escapeHtml(note)}</span></li>`)
    .join('\n');
  const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Admin gateway</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="${ASSETS}/front-door.css">
</head>
<body>
  <h1>Admin gateway</h1>
  <p>Every API operation needs <code>Authorization: Bearer &lt;token or API key&gt;</code>, except sign-in.</p>
  <section id="session">
    <form id="sign-in-form">
      <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
      <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
      <label for="tenantId">Tenant</label><input id="tenantId" name="tenantId" autocomplete="organization">
      <p class="hint">Blank: your platform account, or your only tenant’s.</p>
      <span></span><button type="submit">Sign in</button>
    </form>
    <div id="signed-in" hidden>
      Signed in as <strong id="signed-in-email"></strong> in this tab: GraphiQL and Swagger UI send its token.
      <button id="sign-out" type="button">Sign out</button>
    </div>
    <p id="session-status" role="status"></p>
  </section>
  <ul class="doors">
${items}
  </ul>
  <script src="${ASSETS}/front-door.js"></script>
</body>
</html>
`;
  const script = `(function () {
  ${SIGNED_IN_TOKEN_SCRIPT.replace(/\n/g, '\n  ')}
  var KEY = ${JSON.stringify(SIGNED_IN_STORAGE_KEY)};
  var form = document.getElementById('sign-in-form');
  var signedInPanel = document.getElementById('signed-in');
  var status = document.getElementById('session-status');
  function say(text, refused) {
    status.textContent = text;
    status.className = refused ? 'refused' : '';
  }
  function show() {
    var session = signedIn();
    form.hidden = !!session;
    signedInPanel.hidden = !session;
    document.getElementById('signed-in-email').textContent = session ? session.email : '';
  }
  // A refusal's own words: problem+json's detail, with the fields it names.
  function refusal(response, body) {
    var fields = body && Array.isArray(body.errors) ? body.errors.map(function (e) { return e.message; }).join('; ') : '';
    return (body && body.detail ? body.detail : 'HTTP ' + response.status) + (fields ? ' (' + fields + ')' : '');
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var body = { email: form.email.value, password: form.password.value };
    if (form.tenantId.value.trim() !== '') body.tenantId = form.tenantId.value.trim();
    say('Signing in…');
    fetch(${JSON.stringify(links.signInPath)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (answer) {
          if (!response.ok || !answer || typeof answer.accessToken !== 'string') return say(refusal(response, answer), true);
          window.sessionStorage.setItem(KEY, JSON.stringify({ accessToken: answer.accessToken, email: body.email }));
          form.password.value = '';
          say('');
          show();
        });
      })
      .catch(function () { say('The service did not answer.', true); });
  });
  document.getElementById('sign-out').addEventListener('click', function () {
    var session = signedIn();
    // All of the tab's storage: GraphiQL keeps its headers and history there while signed in (the token among them).
    window.sessionStorage.clear();
    show();
    if (!session) return;
    // The session ends on the server too: its token is refused from the next request.
    fetch(${JSON.stringify(links.signOutPath)}, { method: 'POST', headers: { authorization: 'Bearer ' + session.accessToken, 'content-type': 'application/json' }, body: '{}' })
      .then(function (response) { say(response.ok ? 'Signed out.' : 'Signed out in this tab; the service answered ' + response.status + '.', !response.ok); })
      .catch(function () { say('Signed out in this tab; the service did not answer.', true); });
  });
  show();
})();
`;
  router.get('/', (_req, res) => {
    res.type('html').send(page);
  });
  router.get(`${ASSETS}/front-door.js`, (_req, res) => {
    res.type('application/javascript').send(script);
  });
  router.get(`${ASSETS}/front-door.css`, (_req, res) => {
    res.type('text/css').send(PAGE_CSS);
  });
  // Browsers ask /favicon.ico of every page that names no icon (GraphiQL's, Apollo Sandbox's).
  router.get(['/favicon.svg', '/favicon.ico'], (_req, res) => {
    res.type('image/svg+xml').set('Cache-Control', 'public, max-age=86400').send(FAVICON_SVG);
  });
  return router;
}
