import { PATH_PREFIX } from '@domain-index/contract';
import type { Router } from 'express';
import { DASHBOARD } from '../dashboard/layout';
import { MCP_PATH } from '../mcp/mcp-router';
import { strictRouter } from './strict-router';

/** The paths GET / names; `dashboard` only where the dashboard is served. */
export interface RootIndex {
  message: string;
  api: string;
  docs: string;
  openapi: string;
  /** The MCP server for AI assistants (POST, Streamable HTTP). */
  mcp: string;
  dashboard?: string;
}

/** What GET / answers: where the API, its reference, the MCP server and the dashboard are. */
export function rootIndex(dashboard: boolean): RootIndex {
  const where = [
    `the API is under ${PATH_PREFIX} (send a key in the Authorization header)`,
    'its reference is at /docs',
    `AI assistants reach it over MCP at POST ${MCP_PATH} (the same key)`,
  ];
  if (dashboard) where.push(`keys, usage and alerts are managed at ${DASHBOARD}`);
  return {
    message: `Domain Index: ${where.join('; ')}`,
    api: PATH_PREFIX,
    docs: '/docs',
    openapi: '/openapi.json',
    mcp: MCP_PATH,
    ...(dashboard && { dashboard: DASHBOARD }),
  };
}

/**
 * GET / (and HEAD): a small JSON index of the server in place of a bare 404, for whoever opens
 * the server's address. Public like /docs; it names no version (that is on the admin listener).
 */
export function rootRouter(options: { dashboard: boolean }): Router {
  const router = strictRouter();
  const body = JSON.stringify(rootIndex(options.dashboard));
  router.get('/', (_req, res) => {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.send(body);
  });
  return router;
}

/** GET / for the fallback: another method on / is 405 with `Allow`, not 404. */
export const ROOT_ENDPOINT = { pattern: /^\/$/, methods: ['GET'] } as const;
