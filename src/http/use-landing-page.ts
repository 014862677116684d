import { Router } from 'express';
import { escapeHtml } from './html.js';

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
}

/**
 * `GET /`: a small HTML page linking the service's front doors, so a browser
 * pointed at the bare host finds them. Static, no script, no credential.
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
    .map(([href, title, note]) => `    <li><a href="${escapeHtml(href)}">${escapeHtml(title)}</a> <code>${escapeHtml(href)}</code> — ${escapeHtml(note)}</li>`)
    .join('\n');
  const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Admin gateway</title>
</head>
<body>
  <h1>Admin gateway</h1>
  <p>Every API operation needs <code>Authorization: Bearer &lt;token or API key&gt;</code>, except sign-in.</p>
  <ul>
${items}
  </ul>
</body>
</html>
`;
  router.get('/', (_req, res) => {
    res.type('html').send(page);
  });
  return router;
}
