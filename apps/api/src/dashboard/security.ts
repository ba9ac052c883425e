import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** The policy of every page the service writes for people: nothing from another host, no framing, forms to itself only. */
export const PAGE_POLICY = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/**
 * Headers of an HTML page: nothing loaded from another host, no framing, no sniffing, the
 * Referer as `referrer` says, and nothing kept in a cache (the pages show one person's keys,
 * sessions and audit log, or carry a mailed link's token in their URL).
 */
function pageHeaders(referrer: 'same-origin' | 'no-referrer'): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', PAGE_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', referrer);
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

/**
 * Headers of every dashboard response, the password-reset pages included. No Referer to another
 * site (a set-password link carries its token in the URL), but not `no-referrer`: with it,
 * browsers send `Origin: null` on form posts, and the same-origin check below could no longer
 * tell our own forms from a forged one.
 */
export const dashboardHeaders: RequestHandler = pageHeaders('same-origin');

/**
 * Headers of the pages a mailed link opens outside the dashboard (unsubscribe, confirm an
 * address): the dashboard's, with no Referer at all, since their URL is the link's token and
 * their forms need no same-origin check (the token is what authorises them, and a mail client's
 * one-click unsubscribe posts from nowhere).
 */
export const linkPageHeaders: RequestHandler = pageHeaders('no-referrer');

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
