import type { Request, Response, Router } from 'express';
import type { AlertActions, AlertActor } from '@domain-index/alerts/alert-actions';
import { ApiError } from '@domain-index/api-errors/api-error';
import { strictRouter } from '../../http/strict-router';
import { alertsOf, handle, signedIn, type DashboardDeps } from '../dashboard-deps';
import { html } from '@domain-index/html/html';
import { DASHBOARD, page } from '../layout';
import { sendNotFound } from '../not-found';
import { accountActor } from './account-actor';
import { changesOf, formErrorOf, readAlertForm } from './alert-form';
import { sendAlertPage } from './alert-page';
import { postedFormToken } from './form-token';
import { oncePerForm, revealPath } from './secret-reveal';
import { SECTION } from './section';

const alertPath = (id: string) => `${DASHBOARD}/alerts/${id}`;

/**
 * The actions of an alert's page, each a form that posts and then redirects (post, redirect,
 * get) with a fixed notice: edit, send a test, pause and resume, turn a webhook that was turned
 * off back on, ask for the digest address's confirmation email again, rotate the secret (shown once after the redirect), resend a message, and delete
 * (after a confirmation page). They go through the same AlertActions as the API, so its rules
 * and audit entries are theirs; another account's alert, or a made-up id, is the 404 page.
 */
export function alertActionRoutes(deps: DashboardDeps): Router {
  const router = strictRouter();
  /** A handler for the path's alert when it is the signed-in account's; any other id is the 404 page. */
  const onOwnAlert = (run: (alert: { id: string; name: string }, req: Request, res: Response) => Promise<void> | void) =>
    handle(async (req, res) => {
      const alert = await alertsOf(res, deps).find({ accountId: signedIn(res)!.id }, req.params.id ?? '');
      if (alert === undefined) sendNotFound(res);
      else await run(alert, req, res);
    });
  /** A refusal (an ApiError of 4xx) shown above the alert's page. */
  const refuse = (req: Request, res: Response, error: unknown) =>
    sendAlertPage(deps, req, res, { status: error instanceof ApiError ? error.status : 400, refusal: formErrorOf(error).message });

  /**
   * Runs an action on the path's alert, then redirects to its page with `notice`; a refusal
   * (an ApiError of 4xx) is shown above the page, anything else is a fault (the error page).
   */
  const act = (run: (actor: AlertActor, id: string, req: Request, alerts: AlertActions) => Promise<unknown>, noticeCode: string) =>
    onOwnAlert(async (alert, req, res) => {
      try {
        await run(accountActor(req, res), alert.id, req, alertsOf(res, deps));
      } catch (error) {
        if (error instanceof ApiError && error.code === 'delivery_not_found') sendNotFound(res);
        else await refuse(req, res, error);
        return;
      }
      res.redirect(303, `${alertPath(alert.id)}?notice=${noticeCode}`);
    });

  router.post(
    '/alerts/:id',
    onOwnAlert(async (row, req, res) => {
      const token = postedFormToken(req, res);
      if (token === undefined) return;
      const owner = { accountId: signedIn(res)!.id };
      const values = readAlertForm(req);
      try {
        const alert = await alertsOf(res, deps).get(owner, row.id);
        const changes = changesOf(alert, values, deps.alerts.digestsAvailable || alert.email_digest !== null);
        if (Object.keys(changes).length === 0) {
          res.redirect(303, `${alertPath(row.id)}?notice=unchanged`);
          return;
        }
        // a first webhook URL makes a secret: shown once, on its own page
        const { revealId } = await oncePerForm(deps, res, token, 'alert_webhook_added', (keep) => alertsOf(res, deps).update(accountActor(req, res), row.id, changes, keep));
        res.redirect(303, revealId === undefined ? `${alertPath(row.id)}?notice=saved` : revealPath(revealId));
      } catch (error) {
        const refused = formErrorOf(error);
        await sendAlertPage(deps, req, res, { status: error instanceof ApiError ? error.status : 400, edit: { values, error: refused } });
      }
    }),
  );

  router.post(
    '/alerts/:id/test',
    act((actor, id, _req, alerts) => alerts.sendTest(actor, id), 'test'),
  );
  router.post(
    '/alerts/:id/pause',
    act((actor, id, _req, alerts) => alerts.update(actor, id, { paused: true }), 'paused'),
  );
  router.post(
    '/alerts/:id/resume',
    act((actor, id, _req, alerts) => alerts.update(actor, id, { paused: false }), 'resumed'),
  );
  router.post(
    '/alerts/:id/webhook-on',
    act(async (actor, id, _req, alerts) => {
      const alert = await alerts.find(actor.owner, id);
      if (alert?.webhookUrl == null) throw new ApiError('invalid_parameter', 'the alert has no webhook to turn on; set a webhook URL below', 'id');
      // setting the URL again is what turns a disabled webhook back on (the API's PATCH does the
      // same); the stored URL, not the one shown (whose credentials, if any, are hidden)
      return alerts.update(actor, id, { webhook_url: alert.webhookUrl });
    }, 'webhook-on'),
  );
  router.post(
    '/alerts/:id/confirm-email',
    act((actor, id, _req, alerts) => alerts.resendConfirmation(actor, id), 'confirmation'),
  );
  router.post(
    '/alerts/:id/deliveries/:deliveryId/resend',
    act((actor, id, req, alerts) => alerts.resend(actor, id, req.params.deliveryId ?? ''), 'resent'),
  );

  router.post(
    '/alerts/:id/rotate-secret',
    onOwnAlert(async (row, req, res) => {
      const token = postedFormToken(req, res);
      if (token === undefined) return;
      try {
        const { revealId } = await oncePerForm(deps, res, token, 'alert_rotated', (keep) => alertsOf(res, deps).rotateSecret(accountActor(req, res), row.id, keep));
        if (revealId === undefined) throw new Error('a rotated secret has no page to show it');
        res.redirect(303, revealPath(revealId));
      } catch (error) {
        await refuse(req, res, error);
      }
    }),
  );

  router.get(
    '/alerts/:id/delete',
    onOwnAlert((alert, _req, res) => {
      res.send(
        page({
          title: 'Delete this alert?',
          email: signedIn(res)!.email,
          section: SECTION,
          body: html`<p>
              <strong>${alert.name}</strong> and its queued messages are deleted: nothing more is delivered for it, and its delivery log goes
              with it. This cannot be undone.
            </p>
            <form method="post" action="${alertPath(alert.id)}/delete">
              <button type="submit" class="danger">Delete</button>
              <a href="${alertPath(alert.id)}">Cancel</a>
            </form>`,
        }),
      );
    }),
  );
  router.post(
    '/alerts/:id/delete',
    onOwnAlert(async (alert, req, res) => {
      await alertsOf(res, deps).delete(accountActor(req, res), alert.id);
      res.redirect(303, `${DASHBOARD}/alerts?notice=deleted`);
    }),
  );
  return router;
}

