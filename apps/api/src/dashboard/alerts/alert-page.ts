import type { Alert } from '@domain-index/contract';
import type { AlertRow } from '@domain-index/db';
import type { Request, Response, Router } from 'express';
import { DELIVERY_LOG_DAYS, decodeDeliveryCursor, type DeliveryAttempt } from '@domain-index/alerts/delivery-log';
import { strictRouter } from '../../http/strict-router';
import { alertsOf, handle, signedIn, type DashboardDeps } from '../dashboard-deps';
import { html, type SafeHtml } from '@domain-index/html/html';
import { newFormToken } from '../key-reveal';
import { cardTable, cell, DASHBOARD, notice, noticeOf, page, utc } from '../layout';
import { sendNotFound } from '../not-found';
import { alertFields, valuesOf, type AlertFormValues, type FormError } from './alert-form';
import { alertStateCell, attemptMessage, attemptOutcome, attemptResponse, channelsSummary, filterSummary, lastDeliverySummary } from './alert-views';
import { SECTION } from './section';

/** Attempts on one page of the delivery log. */
const LOG_PAGE = 25;

/** Fixed messages shown after a redirect, chosen by a code so that no text is reflected. */
const NOTICES = new Map([
  ['created', 'The alert was created. It delivers what matches from now on.'],
  ['saved', 'The alert was saved. A new filter applies to events from now on.'],
  ['unchanged', 'Nothing was changed.'],
  ['paused', 'The alert is paused: nothing is delivered until it is resumed, and the matches meanwhile are not sent later.'],
  ['resumed', 'The alert is resumed: it delivers what matches from now on.'],
  ['test', 'A test message is queued: it is sent within seconds, and its attempt shows in the delivery log below.'],
  ['resent', 'The message is queued again, with its webhook-id: it is sent within seconds.'],
  ['webhook-on', 'The webhook is turned back on: what matches from now on is sent to it.'],
  ['confirmation', 'A confirmation email is on its way to your address (at most one every 10 minutes): digests are mailed once its link is clicked.'],
]);

/** What the edit form shows when it is drawn again after a refusal. */
export interface EditForm {
  values: AlertFormValues;
  error?: FormError | undefined;
}

function attemptRow(alert: Alert, attempt: DeliveryAttempt): SafeHtml {
  const resend = html`<form class="inline" method="post" action="${DASHBOARD}/alerts/${alert.id}/deliveries/${attempt.deliveryId}/resend">
    <button type="submit" class="quiet small">Resend</button>
  </form>`;
  return html`<tr role="row">
    ${cell('Time (UTC)', attempt.at.toISOString().replace('T', ' ').slice(0, 19), 'time')} ${cell('Message', attemptMessage(attempt))}
    ${cell('Outcome', attemptOutcome(attempt))} ${cell('Duration', `${attempt.durationMs} ms`, 'num')} ${cell('Response', attemptResponse(attempt), 'response')}
    ${cell('Actions', alert.webhook_url === null ? '' : resend)}
  </tr>`;
}

/** The buttons of what can be done with the alert now. */
function actionButtons(alert: Alert): SafeHtml {
  const path = `${DASHBOARD}/alerts/${alert.id}`;
  const webhook = alert.webhook_url !== null;
  return html`<div class="actions toolbar">
    ${webhook && alert.webhook_state === 'active'
      ? html`<form class="inline" method="post" action="${path}/test"><button type="submit">Send test</button></form>`
      : ''}
    <form class="inline" method="post" action="${path}/${alert.paused ? 'resume' : 'pause'}">
      <button type="submit" class="quiet">${alert.paused ? 'Resume' : 'Pause'}</button>
    </form>
    ${webhook
      ? html`<form class="inline" method="post" action="${path}/rotate-secret">
          <input type="hidden" name="form_token" value="${newFormToken()}" />
          <button type="submit" class="quiet">Rotate secret</button>
        </form>`
      : ''}
    <a class="button quiet" href="${path}/listings.csv" download>Download CSV</a>
    <a class="button danger" href="${path}/delete">Delete</a>
  </div>`;
}

/** Why the webhook is off, and the one step that turns it back on: the first thing on the page. */
function disabledNotice(alert: Alert, row: AlertRow): SafeHtml {
  if (alert.webhook_state !== 'disabled') return html``;
  return html`<div class="notice error" role="alert">
    <p>
      <strong>The webhook is turned off</strong>${row.webhookDisabledAt === null ? '' : ` since ${utc(row.webhookDisabledAt)}`}:
      ${alert.webhook_disabled_reason ?? 'it kept failing'}. Matches are no longer sent to it.
    </p>
    <p>Fix the receiver, then turn it back on (or save a new URL below): what matches from then on is sent.</p>
    <form class="inline" method="post" action="${DASHBOARD}/alerts/${alert.id}/webhook-on">
      <button type="submit">Turn the webhook back on</button>
    </form>
  </div>`;
}

/** A digest that is not mailed (its address not confirmed, or unsubscribed), and the step that fixes it. */
function digestNotice(alert: Alert): SafeHtml {
  if (alert.email_digest === null || alert.email_digest_status === 'confirmed') return html``;
  const why =
    alert.email_digest_status === 'unsubscribed'
      ? html`<strong>The email digest is not mailed</strong>: your address used the unsubscribe link of a digest, so no digest of any alert goes to it until it is confirmed again.`
      : html`<strong>The email digest waits for your address to be confirmed</strong>: a confirmation email was sent to it; nothing is mailed until its link is clicked.`;
  return html`<div class="notice info" role="status">
    <p>${why}</p>
    <form class="inline" method="post" action="${DASHBOARD}/alerts/${alert.id}/confirm-email">
      <button type="submit">Send the confirmation email again</button>
    </form>
  </div>`;
}

/**
 * The page of one alert: its state (a webhook turned off first, with why), filter and channels,
 * what can be done with it, its delivery log of the last 7 days (newest first, older pages by
 * link), and its edit form.
 */
export async function sendAlertPage(deps: DashboardDeps, req: Request, res: Response, options: { status?: number; edit?: EditForm; refusal?: string } = {}): Promise<void> {
  const me = signedIn(res)!;
  const owner = { accountId: me.id };
  const alerts = alertsOf(res, deps);
  const row = await alerts.find(owner, req.params.id ?? '');
  const olderParam = req.query.older;
  const older = typeof olderParam === 'string' ? olderParam : undefined;
  // a made-up or damaged "older" link is as absent as a made-up alert
  if (row === undefined || (older !== undefined && decodeDeliveryCursor(older) === null)) {
    sendNotFound(res);
    return;
  }
  const alert = await alerts.get(owner, row.id);
  const log = await alerts.deliveryLog(owner, row.id, { after: older, limit: LOG_PAGE });
  const path = `${DASHBOARD}/alerts/${alert.id}`;
  const edit = options.edit ?? { values: valuesOf(alert), error: undefined };
  const general = edit.error !== undefined && edit.error.field === undefined ? edit.error.message : undefined;
  res.status(options.status ?? 200).send(
    page({
      title: alert.name,
      email: me.email,
      section: SECTION,
      body: html`<p><a href="${DASHBOARD}/alerts">All alerts</a></p>
        ${notice(options.refusal)} ${disabledNotice(alert, row)} ${notice(noticeOf(NOTICES, req.query.notice), 'info')} ${digestNotice(alert)}
        <dl class="facts">
          <dt>State</dt>
          <dd>${alertStateCell(alert)}</dd>
          <dt>Filter</dt>
          <dd>${filterSummary(alert.query)}</dd>
          <dt>Delivers to</dt>
          <dd>${channelsSummary(alert, true)}</dd>
          <dt>Last delivery</dt>
          <dd>${lastDeliverySummary(alert)}</dd>
          <dt>Created</dt>
          <dd>${utc(row.createdAt)}<span class="detail">changed ${utc(row.updatedAt)}</span></dd>
        </dl>
        ${actionButtons(alert)}
        <p class="detail">
          Download CSV: every listing the filter matches now, as the API's export streams it (which events it names aside; no status is every
          status). It counts one request per started 1,000 rows against your account's downloads, which have your plan's hourly limit, apart
          from your keys'.
        </p>
        <h2>Delivery log</h2>
        <p class="detail">
          Every attempt to send a webhook message over the last ${DELIVERY_LOG_DAYS} days, newest first. Resend queues a message again with its
          webhook-id, so a receiver that drops repeats still sees it once.
        </p>
        ${cardTable({
          label: 'Delivery log',
          columns: [{ title: 'Time (UTC)' }, { title: 'Message' }, { title: 'Outcome' }, { title: 'Duration', className: 'num' }, { title: 'Response' }, { title: 'Actions' }],
          rows: log.attempts.map((attempt) => attemptRow(alert, attempt)),
          empty: older === undefined ? `No attempts in the last ${DELIVERY_LOG_DAYS} days.` : 'No older attempts.',
        })}
        <p class="actions">
          ${older === undefined ? '' : html`<a class="button" href="${path}">Newest attempts</a>`}
          ${log.nextCursor === null ? '' : html`<a class="button" href="${path}?older=${log.nextCursor}">Older attempts</a>`}
        </p>
        <h2 id="edit-alert">Edit</h2>
        ${notice(general)}
        <form class="stack wide" method="post" action="${path}" aria-labelledby="edit-alert">
          <input type="hidden" name="form_token" value="${newFormToken()}" />
          ${alertFields({ id: 'edit', values: edit.values, error: edit.error, digests: deps.alerts.digestsAvailable || alert.email_digest !== null, editing: true })}
          <label class="check"><input type="checkbox" name="paused"${edit.values.paused ? html` checked` : ''} /> Paused</label>
          <button type="submit">Save</button>
        </form>`,
    }),
  );
}

/** GET of an alert's page. */
export function alertPage(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/alerts/:id',
    handle(async (req, res) => {
      await sendAlertPage(deps, req, res);
    }),
  );
  return router;
}
