import express, { type Response, type Router } from 'express';
import type { Database } from '@domain-index/db';
import type { Clock } from '@domain-index/runtime/clock';
import { html } from '@domain-index/html/html';
import { page } from '../dashboard/layout';
import { linkPageHeaders } from '../dashboard/security';
import { strictRouter } from '../http/strict-router';
import { routesUnder } from '../ops/request-metrics';
import { checkConfirmation, CONFIRM_EMAIL_PATH, CONFIRM_LINK_DAYS, confirmWithToken, type ConfirmationCheck } from '@domain-index/alerts/digest-recipients';
import { databaseOf } from '../http/request-deadline';

/** The page of a link that does not confirm anything, and why. */
function refused(check: Extract<ConfirmationCheck, { ok: false }>): { status: number; body: string } {
  const again = html`<p>To get a new link, set the email digest of your alert again: in the dashboard (Alerts, then the alert, then Send the confirmation email again), or with <code>PATCH /api/v1/alerts/{id}</code> and <code>email_digest</code>.</p>`;
  return check.reason === 'expired'
    ? { status: 410, body: page({ title: 'This link has expired', body: html`<p>Confirmation links work for ${CONFIRM_LINK_DAYS} days, and this one is older. Nothing was confirmed.</p>${again}` }) }
    : { status: 404, body: page({ title: 'Link not valid', body: html`<p>This confirmation link is not valid: it was already used, a newer one replaced it, or it was not copied whole. Nothing was confirmed.</p>${again}` }) };
}

/**
 * The link of a digest confirmation email: GET shows a page with one button (a mail scanner that
 * opens links confirms nothing), and POST confirms the address, once: digests go to it from then
 * on, and an unsubscribe is lifted. Public, no key and no sign-in needed: the token is the proof
 * that whoever clicks reads the address's mail.
 */
export function confirmEmailRouter(deps: { database: Database; clock: Clock }): Router {
  const router = strictRouter();
  router.use(routesUnder(CONFIRM_EMAIL_PATH));
  router.use(linkPageHeaders);
  router.use(express.urlencoded({ extended: false, limit: 1024 }));
  const answer = async (res: Response, token: string, confirm: boolean): Promise<{ status: number; body: string }> => {
    const now = deps.clock.now();
    if (!confirm) {
      const check = await checkConfirmation(databaseOf(res, deps), token, now);
      if (!check.ok) return refused(check);
      return {
        status: 200,
        body: page({
          title: 'Confirm this address?',
          body: html`<p>Send the email digests of Domain Index alerts to <b>${check.address}</b>?</p>
            <form method="post"><button type="submit">Confirm the address</button></form>`,
        }),
      };
    }
    const done = await confirmWithToken(databaseOf(res, deps), token, now);
    if (!done.ok) return refused(done);
    return { status: 200, body: page({ title: 'Address confirmed', body: html`<p><b>${done.address}</b> is confirmed: the digests of its alerts are mailed to it from their next period on.</p>` }) };
  };
  for (const method of ['get', 'post'] as const) {
    router[method]('/:token', (req, res, next) => {
      answer(res, req.params.token, method === 'post')
        .then(({ status, body }) => {
          res.status(status).set('Content-Type', 'text/html; charset=utf-8').send(body);
        })
        .catch(next);
    });
  }
  return router;
}
