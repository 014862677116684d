import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router } from 'express';
import { escapeHtml, SIGNED_IN_TOKEN_SCRIPT } from './html.js';

const require = createRequire(import.meta.url);

/** A package's root folder, for files its `exports` map does not list (React's UMD builds). */
function packageRoot(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/**
 * The files the page loads, by their name under `<path>/assets/`, resolved
 * from the installed packages (no CDN): React and ReactDOM as UMD globals,
 * then GraphiQL's own browser bundle, which reads `window.React`.
 */
function assetFiles(): Record<string, string> {
  return {
    'react.production.min.js': join(packageRoot('react'), 'umd/react.production.min.js'),
    'react-dom.production.min.js': join(packageRoot('react-dom'), 'umd/react-dom.production.min.js'),
    'graphiql.min.js': require.resolve('graphiql/graphiql.min.js'),
    'graphiql.min.css': require.resolve('graphiql/graphiql.min.css'),
    // The graphql-ws client (window.graphqlWs): subscriptions over WebSocket on the same /graphql.
    'graphql-ws.min.js': join(packageRoot('graphql-ws'), 'umd/graphql-ws.min.js'),
    // The bundles name their source maps; served so a browser's devtools find them.
    'graphiql.min.js.map': require.resolve('graphiql/graphiql.min.js.map'),
    'graphiql.min.css.map': require.resolve('graphiql/graphiql.min.css.map'),
  };
}

const HEADERS_HINT = '{"Authorization": "Bearer <token or API key>"}';

const PAGE_CSS = `html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
#graphiql-hint { padding: 6px 12px; font-size: 14px; background: #f3f4f6; border-bottom: 1px solid #d1d5db; }
#graphiql-hint code { background: #e5e7eb; padding: 1px 4px; border-radius: 3px; }
#graphiql { flex: 1; min-height: 0; }
`;

/**
 * An offline GraphQL IDE (GraphiQL) at `path`: one HTML page whose scripts,
 * styles and initializer are all local routes under `<path>/assets/`, so it
 * works without internet (unlike Apollo Sandbox) and under a
 * Content-Security-Policy that forbids inline scripts. It needs no
 * credential: it is a static page, and the operations it sends carry
 * whatever the user puts in its Headers tab (kept in the browser's
 * localStorage, `shouldPersistHeaders`), or the token of the front door's
 * sign-in (use-landing-page.ts), read from the tab's sessionStorage, where
 * GraphiQL then keeps its own state too.
 */
export function useGraphiQL({ path, graphqlPath }: { path: string; graphqlPath: string }): Router {
  const router = Router();
  const assets = `${path}/assets`;
  const files = assetFiles();

  // Queries and mutations go over HTTP; a subscription over WebSocket (graphql-transport-ws), one
  // connection per run, its connection_init carrying the Headers tab's Authorization.
  const initializer = `(function () {
  ${SIGNED_IN_TOKEN_SCRIPT.replace(/\n/g, '\n  ')}
  // Signed in at the front door (/): its token fills the Headers tab, and GraphiQL keeps its state
  // (tabs, history, headers: the token among them) in the tab's sessionStorage, not in localStorage.
  var token = signedInToken();
  var url = new URL(${JSON.stringify(graphqlPath)}, window.location.href).href;
  var httpFetcher = GraphiQL.createFetcher({ url: url });
  function isSubscription(params) {
    var text = String(params.query || '').replace(/#[^\\n]*/g, '');
    var name = params.operationName;
    if (name) return new RegExp('\\\\bsubscription\\\\s+' + name + '\\\\b').test(text);
    return /(^|\\})\\s*subscription\\b/.test(text);
  }
  function subscribe(params, headers) {
    var auth = headers.Authorization || headers.authorization;
    return {
      subscribe: function (observer) {
        var client = graphqlWs.createClient({ url: url.replace(/^http/, 'ws'), connectionParams: auth ? { Authorization: auth } : {}, lazy: true, retryAttempts: 0 });
        var stop = client.subscribe({ query: params.query, variables: params.variables, operationName: params.operationName }, {
          next: function (value) { observer.next(value); },
          error: function (err) {
            // A refusal arrives as GraphQL errors: shown as a result; a closed socket as an error.
            if (Array.isArray(err)) { observer.next({ errors: err }); observer.complete(); }
            else observer.error(err instanceof Error ? err : new Error('WebSocket closed' + (err && err.code ? ' (' + err.code + (err.reason ? ': ' + err.reason : '') + ')' : '')));
            client.dispose();
          },
          complete: function () { observer.complete(); client.dispose(); },
        });
        return { unsubscribe: function () { stop(); client.dispose(); } };
      },
    };
  }
  var fetcher = function (params, options) {
    return isSubscription(params) ? subscribe(params, (options && options.headers) || {}) : httpFetcher(params, options);
  };
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      isHeadersEditorEnabled: true,
      headers: token ? JSON.stringify({ Authorization: 'Bearer ' + token }, null, 2) : undefined,
      storage: token ? window.sessionStorage : undefined,
      shouldPersistHeaders: true,
      defaultEditorToolsVisibility: 'headers',
      defaultQuery: ${JSON.stringify(`# Put your credential in the Headers tab below:\n#   ${HEADERS_HINT}\n# then run with Ctrl-Enter.\n\n{\n  me {\n    email\n  }\n}\n`)},
    }),
  );
})();
`;

  const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>GraphiQL</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="${assets}/graphiql.min.css">
  <link rel="stylesheet" href="${assets}/graphiql-page.css">
</head>
<body>
  <div id="graphiql-hint">Offline GraphQL IDE for <code>${escapeHtml(graphqlPath)}</code>.
    Sign in at <a href="/">the front door</a> (its token fills the <strong>Headers</strong> tab), or put
    <code>${escapeHtml(HEADERS_HINT)}</code> there yourself (kept in this browser).</div>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="${assets}/react.production.min.js"></script>
  <script src="${assets}/react-dom.production.min.js"></script>
  <script src="${assets}/graphiql.min.js"></script>
  <script src="${assets}/graphql-ws.min.js"></script>
  <script src="${assets}/graphiql-init.js"></script>
</body>
</html>
`;

  router.get(path, (_req, res) => {
    res.type('html').send(page);
  });
  router.get(`${assets}/graphiql-init.js`, (_req, res) => {
    res.type('application/javascript').send(initializer);
  });
  router.get(`${assets}/graphiql-page.css`, (_req, res) => {
    res.type('text/css').send(PAGE_CSS);
  });
  for (const [name, file] of Object.entries(files)) {
    router.get(`${assets}/${name}`, (_req, res, next) => {
      res.sendFile(file, { maxAge: '1h' }, (err) => {
        // A client that went away mid-file leaves nothing to answer.
        if (err && !res.headersSent) next(err);
      });
    });
  }
  return router;
}
