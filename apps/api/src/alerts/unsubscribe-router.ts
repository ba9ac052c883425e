import express, { type Response, type Router } from 'express';
import { alerts, eq, type Database } from '@domain-index/db';
import type { Clock } from '@domain-index/runtime/clock';
import { html } from '@domain-index/html/html';
import { page } from '../dashboard/layout';
import { linkPageHeaders } from '../dashboard/security';
import { strictRouter } from '../http/strict-router';
import { routesUnder } from '../ops/request-metrics';
import { recordAudit } from '@domain-index/audit/audit';
import { suppress } from '@domain-index/alerts/digest-recipients';
import { checkUnsubscribeToken, UNSUBSCRIBE_LINK_DAYS } from '@domain-index/alerts/unsubscribe-token';
import { databaseOf } from '../http/request-deadline';

/** Where an email digest's unsubscribe link points: public, no key and no sign-in needed. */
export const UNSUBSCRIBE_PATH = '/alerts/unsubscribe';

/**
 * The unsubscribe link of an email digest: GET shows a page with one button, and POST (the
 * button, or a mail client's one-click unsubscribe of RFC 8058) turns the alert's digest off and
 * suppresses its address: no digest of any alert goes there until the address is confirmed again.
 * The token is an HMAC of the alert's id and the time the link was made, so a link works for its
 * own alert only, and for UNSUBSCRIBE_LINK_DAYS: an older one is a page that says what to do
 * instead. A wrong one is a page that says so, never a hint whether the alert exists.
 */
export function unsubscribeRouter(deps: { database: Database; clock: Clock; secret: Buffer }): Router {
  const router = strictRouter();
  router.use(routesUnder(UNSUBSCRIBE_PATH));
  router.use(linkPageHeaders);
  router.use(express.urlencoded({ extended: false, limit: 1024 }));
  const answer = async (res: Response, alertId: string, token: string, confirm: boolean): Promise<{ status: number; body: string }> => {
    const check = checkUnsubscribeToken(deps.secret, alertId, token, deps.clock.now());
    if (check === 'invalid') {
      return { status: 404, body: page({ title: 'Link not valid', body: html`<p>This unsubscribe link is not valid. Copy the whole link from the email, or turn the digest off in the dashboard.</p>` }) };
    }
    if (check === 'expired') {
      return {
        status: 410,
        body: page({
          title: 'This link has expired',
          body: html`<p>Unsubscribe links work for ${UNSUBSCRIBE_LINK_DAYS} days after the digest that carried them, and this one is older. Nothing was changed.</p>
            <p>To stop these emails, use the link in the latest digest you received, or sign in to the dashboard, open the alert (Alerts, then the alert) and set its email digest to none.</p>`,
        }),
      };
    }
    const [alert] = await databaseOf(res, deps).db.select({ name: alerts.name, digest: alerts.emailDigest, to: alerts.emailTo, accountId: alerts.accountId }).from(alerts).where(eq(alerts.id, alertId));
    if (alert === undefined || alert.digest === null) {
      return { status: 200, body: page({ title: 'Unsubscribed', body: html`<p>You receive no digest for this alert.</p>` }) };
    }
    if (!confirm) {
      return {
        status: 200,
        body: page({
          title: 'Stop these emails?',
          body: html`<p>Stop the ${alert.digest} digest of the alert <b>${alert.name}</b>? Its webhook, if it has one, keeps running.</p>
            <p>This address then gets no digest of any alert until its owner confirms it again with a new link.</p>
            <form method="post"><button type="submit">Stop the emails</button></form>`,
        }),
      };
    }
    const now = deps.clock.now();
    const address = alert.to;
    await databaseOf(res, deps).db.transaction(async (tx) => {
      await tx.update(alerts).set({ emailDigest: null, emailTo: null, digestDueAt: null, updatedAt: now }).where(eq(alerts.id, alertId));
      // the address, not only this alert: no digest of any alert goes to it until it is confirmed again
      if (address !== null) await suppress(tx, address, now);
      if (alert.accountId !== null) await recordAudit(tx, { accountId: alert.accountId, at: now, kind: 'alert_changed', detail: `${alert.name} (${alertId}): email_digest, turned off by the unsubscribe link of a digest` });
    });
    return {
      status: 200,
      body: page({
        title: 'Unsubscribed',
        body: html`<p>You will receive no more digests of the alert <b>${alert.name}</b>.</p>
          <p>No digest of any other alert goes to this address either, until it is confirmed again: setting a digest on an alert (in the dashboard or the API) mails a new confirmation link, and nothing is sent before it is clicked.</p>`,
      }),
    };
  };
  for (const method of ['get', 'post'] as const) {
    router[method]('/:alertId/:token', (req, res, next) => {
      answer(res, req.params.alertId, req.params.token, method === 'post')
        .then(({ status, body }) => {
          res.status(status).set('Content-Type', 'text/html; charset=utf-8').send(body);
        })
        .catch(next);
    });
  }
  return router;
}
