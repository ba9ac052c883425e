import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Response, Router } from 'express';
import { strictRouter } from '../http/strict-router';
import { OpenApiBody } from './openapi-body';
import { Precompressed } from './precompressed';

/** Redoc's standalone bundle, from the npm package: the page loads nothing from another host. */
const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/**
 * What the reference page may load, all from this origin: Redoc injects its styles inline,
 * renders inline SVG icons as data: images, and runs its search index in a blob: worker.
 */
const DOCS_POLICY = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Domain Index Search API reference</title>
</head>
<body>
<div id="reference"></div>
<script src="/docs/redoc.standalone.js"></script>
<script src="/docs/reference.js"></script>
</body>
</html>
`;

/** Starts Redoc on the served document (a file of its own: the policy allows no inline script). */
const INIT = `Redoc.init('/openapi.json', { hideDownloadButton: false, expandResponses: '200,201,202', nativeScrollbars: true }, document.getElementById('reference'));\n`;

/** What the reference needs from the configuration. */
export interface ApiDocsOptions {
  /** PUBLIC_URL, when configured: the document's server. Without it, each request's own origin. */
  publicUrl?: string | undefined;
}

/**
 * GET /openapi.json (the OpenAPI 3 document, generated from the contract) and GET /docs (a
 * reference page rendered by Redoc). Public and outside /api/v1: every API endpoint still
 * requires a key.
 */
export function apiDocsRouter(options: ApiDocsOptions = {}): Router {
  const router = strictRouter();
  const openApi = new OpenApiBody(options.publicUrl);
  // The one thing Redoc fetches from another host: the logo beside "API docs by Redocly" in its
  // menu. Without it the image fails, and Redoc then leaves it out.
  const bundle = readFileSync(REDOC_BUNDLE, 'utf8').replace(REDOCLY_LOGO, 'data:,');
  if (bundle.includes(REDOCLY_LOGO)) throw new Error('the Redoc bundle still loads its logo from another host');
  const headers = (res: Response, type: string, policy?: string) => {
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (policy === undefined) return;
    // an HTML page: with the framing and Referer rules of every page the service writes
    res.setHeader('Content-Security-Policy', policy);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
  };
  const send = (res: Response, type: string, body: string, policy?: string) => {
    headers(res, type, policy);
    res.send(body);
  };
  const bundleBody = new Precompressed(Buffer.from(bundle));
  router.get('/openapi.json', (req, res) => {
    headers(res, 'application/json; charset=utf-8');
    openApi.bodyFor(req).send(req, res);
  });
  router.get('/docs', (_req, res) => {
    send(res, 'text/html; charset=utf-8', PAGE, DOCS_POLICY);
  });
  router.get('/docs/redoc.standalone.js', (req, res) => {
    headers(res, 'text/javascript; charset=utf-8');
    bundleBody.send(req, res);
  });
  router.get('/docs/reference.js', (_req, res) => {
    send(res, 'text/javascript; charset=utf-8', INIT);
  });
  return router;
}
