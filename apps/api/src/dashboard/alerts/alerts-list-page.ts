import type { Alert } from '@domain-index/contract';
import type { Request, Response, Router } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { strictRouter } from '../../http/strict-router';
import { alertsOf, handle, signedIn, type DashboardDeps } from '../dashboard-deps';
import { html, type SafeHtml } from '@domain-index/html/html';
import { newFormToken } from '../key-reveal';
import { cardTable, cell, DASHBOARD, notice, noticeOf, page } from '../layout';
import { accountActor, accountAlertPlan } from './account-actor';
import { alertFields, formErrorOf, newAlertOf, readAlertForm, type AlertFormValues, type FormError } from './alert-form';
import { alertStateCell, channelsSummary, filterSummary, lastDeliverySummary } from './alert-views';
import { postedFormToken } from './form-token';
import { oncePerForm, revealPath } from './secret-reveal';
import { SECTION } from './section';
import { databaseOf } from '../../http/request-deadline';

/** Fixed messages shown after a redirect, chosen by a code so that no text is reflected. */
const NOTICES = new Map([['deleted', 'The alert was deleted, with its queued messages. Nothing more is delivered for it.']]);

const EMPTY_FORM: AlertFormValues = { name: '', query: '', webhook_url: '', email_digest: 'none', paused: false };

function alertRow(alert: Alert): SafeHtml {
  const path = `${DASHBOARD}/alerts/${alert.id}`;
  return html`<tr role="row">
    ${cell('Alert', html`<a class="wrap" href="${path}"><strong>${alert.name}</strong></a><span class="detail wrap">${filterSummary(alert.query)}</span>`)}
    ${cell('Delivers to', channelsSummary(alert))} ${cell('State', alertStateCell(alert))}
    ${cell('Last delivery', lastDeliverySummary(alert), 'time')}
    ${cell('Actions', html`<div class="actions"><a class="button" href="${path}">Open</a></div>`)}
  </tr>`;
}

/** The list of the account's alerts and the form that makes one (or why it cannot: the plan's limit). */
async function listPage(deps: DashboardDeps, req: Request, res: Response, form: { values: AlertFormValues; error?: FormError | undefined; status: number }): Promise<void> {
  const me = signedIn(res)!;
  const [alerts, plan] = await Promise.all([alertsOf(res, deps).list({ accountId: me.id }), accountAlertPlan(databaseOf(res, deps), me.planId)]);
  const off = alerts.filter((alert) => alert.webhook_state === 'disabled');
  const full = alerts.length >= plan.alertsLimit;
  const general = form.error !== undefined && form.error.field === undefined ? form.error.message : undefined;
  res.status(form.status).send(
    page({
      title: 'Alerts',
      email: me.email,
      section: SECTION,
      body: html`${notice(noticeOf(NOTICES, req.query.notice), 'info')}
        ${off.length === 0
          ? ''
          : html`<p class="notice error" role="alert">
              <strong>${off.length === 1 ? 'A webhook is turned off' : `${off.length} webhooks are turned off`}</strong>: their matches are no
              longer sent. ${off.map((alert, i) => html`${i === 0 ? '' : ', '}<a href="${DASHBOARD}/alerts/${alert.id}">${alert.name}</a>`)}.
            </p>`}
        <p>
          An alert watches the change feed for listings that match its filter and sends them to your webhook as they change,
          or by email. Plan <strong>${plan.id}</strong>: ${alerts.length} of ${plan.alertsLimit} alerts.
        </p>
        ${cardTable({
          label: 'Alerts',
          columns: [{ title: 'Alert' }, { title: 'Delivers to' }, { title: 'State' }, { title: 'Last delivery' }, { title: 'Actions' }],
          rows: alerts.map(alertRow),
          empty: 'No alerts yet: create one below.',
        })}
        <p class="detail">Times are UTC. Each alert's page has its delivery log of the last 7 days.</p>
        <h2 id="new-alert">New alert</h2>
        ${full
          ? html`<p class="notice error" role="alert">
              Your plan (${plan.id}) allows ${plan.alertsLimit} alerts and you have ${alerts.length}: delete one to create another, or move to a plan with
              more.
            </p>`
          : html`${notice(general)}
              <form class="stack wide" method="post" action="${DASHBOARD}/alerts" aria-labelledby="new-alert">
                <input type="hidden" name="form_token" value="${newFormToken()}" />
                ${alertFields({ id: 'new', values: form.values, error: form.error, digests: deps.alerts.digestsAvailable, editing: false })}
                <button type="submit">Create alert</button>
              </form>`}`,
    }),
  );
}

/** The alerts page and the form that creates one (post, redirect to its secret shown once, get). */
export function alertsListPage(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/alerts',
    handle(async (req, res) => {
      await listPage(deps, req, res, { values: EMPTY_FORM, status: 200 });
    }),
  );
  router.post(
    '/alerts',
    handle(async (req, res) => {
      const token = postedFormToken(req, res);
      if (token === undefined) return;
      const values = readAlertForm(req);
      const me = signedIn(res)!;
      try {
        const body = newAlertOf(values);
        const plan = await accountAlertPlan(databaseOf(res, deps), me.planId);
        const { revealId, result } = await oncePerForm(deps, res, token, 'alert_created', (keep) => alertsOf(res, deps).create(accountActor(req, res), plan, body, keep));
        if (result !== undefined && result.secret === null) res.redirect(303, `${DASHBOARD}/alerts/${result.alert.id}?notice=created`);
        else if (revealId !== undefined) res.redirect(303, revealPath(revealId));
        else throw new Error('a created alert has no page to show it');
      } catch (error) {
        const refused = formErrorOf(error);
        await listPage(deps, req, res, { values, error: refused, status: error instanceof ApiError ? error.status : 400 });
      }
    }),
  );
  return router;
}
