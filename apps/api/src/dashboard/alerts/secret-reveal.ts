import type { Response, Router } from 'express';
import type { AlertWithSecret, SecretKeeper } from '@domain-index/alerts/alert-actions';
import { strictRouter } from '../../http/strict-router';
import { alertsOf, handle, sessionToken, signedIn, type DashboardDeps } from '../dashboard-deps';
import { html } from '@domain-index/html/html';
import { FormAlreadyPosted, notShownReason, revealOfForm, storeReveal, takeReveal, type AlertRevealKind } from '../key-reveal';
import { DASHBOARD, page } from '../layout';
import { sendNotFound } from '../not-found';
import { SECTION } from './section';
import { databaseOf } from '../../http/request-deadline';

const ALERT_REVEALS: readonly AlertRevealKind[] = ['alert_created', 'alert_rotated', 'alert_webhook_added', 'alert_created_no_secret'];

/** Where the page that shows a new secret once is. */
export const revealPath = (revealId: string) => `${DASHBOARD}/alerts/new/${revealId}`;

/**
 * Runs an action that may make a signing secret, once per form, with the keys' mechanism
 * (key_reveals): the secret is sealed for this session and stored in the transaction that makes
 * it, for the page that shows it once after the redirect. A form posted again (a double click,
 * a retry, on any instance) finds the first post's page instead of acting twice. Returns that
 * page's id (undefined when the action made no secret and kept nothing) and the action's result
 * (undefined when an earlier post of the form did the work).
 */
export async function oncePerForm(
  deps: DashboardDeps,
  res: Response,
  token: string,
  kind: Exclude<AlertRevealKind, 'alert_created_no_secret'>,
  act: (keep: SecretKeeper) => Promise<AlertWithSecret>,
): Promise<{ revealId: string | undefined; result?: AlertWithSecret }> {
  const me = signedIn(res)!;
  const earlier = await revealOfForm(databaseOf(res, deps), me.id, token, deps.clock.now());
  if (earlier !== undefined) return { revealId: earlier };
  let revealId: string | undefined;
  try {
    const result = await act(async (tx, alertId, secret) => {
      revealId = await storeReveal(tx, {
        accountId: me.id,
        formToken: token,
        sessionToken: sessionToken(res)!,
        kind: secret === null ? 'alert_created_no_secret' : kind,
        keyId: alertId,
        key: secret,
        at: deps.clock.now(),
      });
    });
    return { revealId, result };
  } catch (error) {
    if (!(error instanceof FormAlreadyPosted)) throw error;
    return { revealId: await revealOfForm(databaseOf(res, deps), me.id, token, deps.clock.now()) };
  }
}

const TITLES: Record<Exclude<AlertRevealKind, 'alert_created_no_secret'>, string> = {
  alert_created: 'Alert created',
  alert_rotated: 'Signing secret rotated',
  alert_webhook_added: 'Webhook added',
};

/**
 * The page that shows an alert's new signing secret, once: a reload, another session or a visit
 * after 10 minutes says why it is not shown, and how to get a new one (rotate).
 */
export function secretRevealPage(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/alerts/new/:reveal',
    handle(async (req, res) => {
      const me = signedIn(res)!;
      const reveal = await takeReveal(databaseOf(res, deps), { id: req.params.reveal ?? '', accountId: me.id, sessionToken: sessionToken(res)!, at: deps.clock.now(), kinds: ALERT_REVEALS });
      const alert = reveal === undefined ? undefined : await alertsOf(res, deps).find({ accountId: me.id }, reveal.keyId);
      if (reveal === undefined || alert === undefined) {
        sendNotFound(res);
        return;
      }
      const alertPath = `${DASHBOARD}/alerts/${alert.id}`;
      if (reveal.kind === 'alert_created_no_secret') {
        // an alert without a webhook has no secret: a form posted again lands on the alert
        res.redirect(303, `${alertPath}?notice=created`);
        return;
      }
      const title = TITLES[reveal.kind];
      if (reveal.shown !== 'now') {
        const why = notShownReason(reveal.shown, 'It was shown once, when it was made, and cannot be shown again.');
        res.send(
          page({
            title,
            email: me.email,
            section: SECTION,
            body: html`<p>The signing secret of <strong>${alert.name}</strong> exists and signs its deliveries. ${why}</p>
              <p>If you did not copy it, rotate it on <a href="${alertPath}">the alert's page</a> for a new one.</p>`,
          }),
        );
        return;
      }
      res.send(
        page({
          title,
          email: me.email,
          section: SECTION,
          body: html`<p><strong>${alert.name}</strong></p>
            <div class="secret">
              <label for="new-secret">Signing secret</label>
              <input id="new-secret" readonly value="${reveal.key}" spellcheck="false" autocomplete="off" />
              <button type="button" data-copy="new-secret">Copy</button>
            </div>
            <p class="notice info" role="status">
              <strong>Copy it now: it will not be shown again.</strong> Your receiver checks each delivery's
              <code>webhook-signature</code> with it (any Standard Webhooks library does). Reloading this page will not show it.
              ${reveal.kind === 'alert_rotated' ? 'The old secret also signs deliveries for 24 hours, while you switch over.' : ''}
            </p>
            <p><a href="${alertPath}">Go to the alert</a></p>`,
        }),
      );
    }),
  );
  return router;
}
