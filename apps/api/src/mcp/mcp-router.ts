import { DomainIndex } from '@domain-index/client';
import { answerStreamableHttp, MCP_CLIENT_OPTIONS } from '@domain-index/mcp';
import type { NextFunction, Request, Response, Router } from 'express';
import type { RouteDeps } from '../app';
import { authenticate } from '../auth/authenticate';
import { PlanCache } from '../auth/plan-cache';
import { ApiError } from '@domain-index/api-errors/api-error';
import { jsonBody } from '../http/json-body';
import { routesUnder } from '../ops/request-metrics';
import { rejectKeyInQuery } from '../http/reject-key-in-query';
import { strictRouter } from '../http/strict-router';
import { loopbackUrl } from './loopback-url';

/** Where the MCP endpoint is served. */
export const MCP_PATH = '/mcp';

/** The caller's key, which authentication has just accepted. */
const bearerKey = (req: Request) => /^Bearer\s+(\S+)$/i.exec((req.get('authorization') ?? '').trim())?.[1] ?? '';

/**
 * One MCP exchange. Its tools call this same server over loopback with the caller's key: each
 * tool call is a REST request, limited, counted and logged as one.
 */
async function exchange(req: Request, res: Response, version: string): Promise<void> {
  // The POST that carries the exchange is not counted itself (its tool calls are, as REST
  // requests): `initialize` or `tools/list` must not use up a plan's requests.
  res.locals.caller = undefined;
  const client = new DomainIndex({ apiKey: bearerKey(req), baseUrl: loopbackUrl(req.socket), ...MCP_CLIENT_OPTIONS });
  await answerStreamableHttp(client, req, res, req.body, { version });
}

/**
 * `POST /mcp`: the MCP server over Streamable HTTP. The key is checked as the API checks it
 * (401 with the Bearer challenge, a key in the URL refused), the body read as the API's JSON
 * bodies are (16 KB). GET (a stream of server messages) and DELETE (ending a session) are 405,
 * as the transport's spec has a server without sessions answer them.
 */
export function mcpRouter(deps: RouteDeps): Router {
  const router = strictRouter();
  router.use(routesUnder(MCP_PATH));
  router.post(
    '/',
    rejectKeyInQuery(),
    authenticate({ ...deps, plans: new PlanCache(deps.reads, deps.clock) }),
    ...jsonBody(),
    (req: Request, res: Response, next: NextFunction) => {
      exchange(req, res, deps.version ?? 'dev').catch(next);
    },
  );
  router.all('/', (req, res, next) => {
    res.setHeader('Allow', 'POST');
    next(new ApiError('method_not_allowed', `${req.method} is not allowed here; use POST: this MCP server keeps no sessions, so there is no stream to open and no session to end`));
  });
  return router;
}
