import type { NextFunction, Request, Response } from 'express';

/**
 * Headers of every dashboard response: nothing loaded from another host, no framing, no
 * sniffing, no Referer to another site (a set-password link carries its token in the URL), and
 * nothing kept in a cache: the pages show keys, sessions and the audit log of one person.
 * Not `no-referrer`: with it, browsers send `Origin: null` on form posts, and the same-origin
 * check below could no longer tell our own forms from a forged one.
 */
export function dashboardHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/**
 * Refuses a state-changing request that a browser sent from another site (cross-site request
 * forgery). Browsers send Origin on every POST and Sec-Fetch-Site on every request; either
 * must say this origin. A client that sends neither is not a browser, so no other site can have
 * made it send the request (and it still needs the session cookie).
 *
 * The origin is PUBLIC_URL's, never one made from the request's Host: a page on a domain that
 * an attacker points at this server (DNS rebinding) sends its own Host and Origin, which agree.
 */
export function sameOriginOnly(publicOrigin: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      next();
      return;
    }
    const origin = req.get('origin');
    const site = req.get('sec-fetch-site');
    const originOk = origin === undefined || origin === publicOrigin;
    const siteOk = site === undefined || site === 'same-origin' || site === 'none';
    if (originOk && siteOk) {
      next();
      return;
    }
    res.status(403).type('text/plain').send('This form was sent from another site, so it was refused. Open the dashboard and try again.\n');
  };
}
