import type { Server } from 'node:http';
import express from 'express';
import type { Registry } from 'prom-client';
import { PROMETHEUS_CONTENT_TYPE } from '@domain-index/runtime/process-registry';
import { CliError } from '../cli-error';
import type { Logger } from '@domain-index/runtime/logger';
import type { HealthReport } from '@domain-index/runtime/health-report';
import { probesRouter } from '@domain-index/api/ops/probes-router';
import { readinessRegistry, type Readiness } from '@domain-index/runtime/readiness';

/** What the admin listener serves, from whichever process runs it. */
export interface AdminEndpoints {
  readiness: Readiness;
  /** The Prometheus text exposition: this process's metrics, or every worker's aggregated. */
  metrics(): Promise<{ contentType: string; text: string }>;
  health(): Promise<HealthReport>;
}

/**
 * The admin listener (ADMIN_PORT on ADMIN_HOST, loopback by default), as PostgREST has one:
 * /livez, /readyz, /metrics and a detailed /health, with no key, away from the API's port and
 * its access log, so that monitoring never competes with customers' requests.
 */
async function startAdminServer(
  address: { host: string; port: number },
  endpoints: AdminEndpoints,
  logger: Logger,
): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(probesRouter(endpoints.readiness));
  const ready = readinessRegistry(endpoints.readiness);
  app.get('/metrics', (_req, res, next) => {
    Promise.all([endpoints.metrics(), ready.metrics()]).then(([{ contentType, text }, readiness]) => {
      // end(), not send(): the content type goes out exactly as the exposition format names it
      res.set({ 'Content-Type': contentType, 'Cache-Control': 'no-store' }).end(`${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${readiness}`);
    }, next);
  });
  app.get('/health', (_req, res, next) => {
    endpoints.health().then((report) => {
      res
        .status(report.status === 'fail' ? 503 : 200)
        .set({ 'Content-Type': 'application/health+json', 'Cache-Control': 'no-store' })
        .end(`${JSON.stringify(report, null, 2)}\n`);
    }, next);
  });
  app.use((_req, res) => {
    res
      .status(404)
      .type('text/plain')
      .send('not found: the admin listener serves /livez, /readyz, /metrics and /health\n');
  });
  app.use(
    (error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      logger.error({ err: error }, 'the admin listener failed to answer');
      res.status(500).type('text/plain').send('internal error\n');
    },
  );
  try {
    return await new Promise<Server>((resolve, reject) => {
      const server = app.listen(address.port, address.host, () => {
        resolve(server);
      });
      server.once('error', reject);
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(
      `cannot listen on the admin address ${address.host}:${address.port}: ${typeof code === 'string' ? code : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The admin listener of a process when ADMIN_PORT is set (undefined otherwise), started and
 * announced: what `serve`, its primary with WORKERS, and `sync` each run first.
 */
export async function openAdmin(
  config: { admin?: { host: string; port: number } | undefined },
  endpoints: AdminEndpoints,
  logger: Logger,
): Promise<Server | undefined> {
  if (config.admin === undefined) return undefined;
  const server = await startAdminServer(config.admin, endpoints, logger);
  announceAdmin(server, config, logger);
  return server;
}

/** /metrics of a process from its own registry. */
export const ownMetrics = (registry: Registry) => async () => ({
  contentType: PROMETHEUS_CONTENT_TYPE,
  text: await registry.metrics(),
});

/** Says where the admin listener is, in the log and, for an operator at a terminal, on stdout. */
function announceAdmin(
  server: Server,
  config: { admin?: { host: string } | undefined },
  logger: Logger,
): void {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : undefined;
  const host = config.admin?.host ?? '127.0.0.1';
  logger.info({ host, port }, 'admin listening');
  process.stdout.write(
    `Admin listener (probes, /metrics, /health) at http://${host.includes(':') ? `[${host}]` : host}:${port}\n`,
  );
}

/** Closes the admin listener and its idle scrape connections (a scraper keeps them open). */
export function stopAdminServer(server: Server | undefined): Promise<void> {
  if (server === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}
