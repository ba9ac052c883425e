import type { Request } from 'express';

/**
 * The client address of a request, for the audit log and the dashboard's limits: Express's
 * `req.ip`, which follows X-Forwarded-For only as far as the `trust proxy` setting (TRUST_PROXY).
 */
export const clientAddress = (req: Pick<Request, 'ip' | 'socket'>): string =>
  req.ip ?? req.socket.remoteAddress ?? 'unknown';
