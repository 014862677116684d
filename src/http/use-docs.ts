import express, { Router } from 'express';
// Only the asset folder's path: the package's main module loads the whole browser bundle.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { SIGNED_IN_TOKEN_SCRIPT } from './html.js';

/**
 * Swagger UI at `<basePath>/docs/`, served from the local swagger-ui-dist
 * files (no CDN), pointed at our own OpenAPI document. Signed in at the
 * front door (use-landing-page.ts), Try it out sends that token unless the
 * Authorize dialog gives one.
 */
export function useDocs({ basePath, openApiPath }: { basePath: string; openApiPath: string }): Router {
  const router = Router();
  const docsPath = `${basePath}/docs`;
  const initializer = `${SIGNED_IN_TOKEN_SCRIPT}
window.onload = function () {
  window.ui = SwaggerUIBundle({
    requestInterceptor: function (request) {
      var token = signedInToken();
      var headers = request.headers || (request.headers = {});
      if (token && !headers.Authorization && !headers.authorization) headers.Authorization = 'Bearer ' + token;
      return request;
    },
    url: ${JSON.stringify(openApiPath)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
};
`;
  // The page loads its assets relatively (./swagger-ui.css), so it must live under a trailing slash.
  router.get(docsPath, (req, res, next) => {
    if (req.path.endsWith('/')) return next();
    res.redirect(301, `${docsPath}/`);
  });
  router.get(`${docsPath}/swagger-initializer.js`, (_req, res) => {
    res.type('application/javascript').send(initializer);
  });
  router.use(docsPath, express.static(getAbsoluteFSPath(), { index: 'index.html', redirect: false }));
  return router;
}
