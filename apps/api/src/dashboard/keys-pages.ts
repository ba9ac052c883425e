import { eq, plans } from '@domain-index/db';
import type { Request, Response, Router } from 'express';
import { strictRouter } from '../http/strict-router';
import { createAccountKey, KEY_EXPIRY_DAYS, listAccountKeys, revokeAccountKey, rotateAccountKey, ROTATION_OVERLAPS, type AccountKey, type RotationOverlap } from '../accounts/account-keys';
import type { Account } from '../accounts/account-store';
import { lastDayOfUsage } from '../usage/usage-query';
import { clientAddress } from '../http/client-address';
import { handle, signedIn, type DashboardDeps } from './dashboard-deps';
import { html } from './html';
import { DASHBOARD, notice, noticeOf, page } from './layout';
import { usageChart } from './usage-chart';

const NAME_MAX = 60;
/** Fixed messages shown after a redirect, chosen by a code so that no text is reflected. */
const NOTICES = new Map([['revoked', 'The key was revoked. It is refused from the next request on.']]);

const when = (at: Date | null) => (at === null ? 'never' : `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

async function planLimit(deps: DashboardDeps, planId: string): Promise<number | undefined> {
  const [plan] = await deps.database.db.select({ limit: plans.requestsPerWindow }).from(plans).where(eq(plans.id, planId));
  return plan?.limit;
}

function keyRow(key: AccountKey, limit: number | undefined) {
  const actions =
    key.status === 'active'
      ? html`<a href="${DASHBOARD}/keys/${key.id}/rotate">Rotate</a> <a href="${DASHBOARD}/keys/${key.id}/revoke">Revoke</a>`
      : html``;
  return html`<tr>
    <td>${key.name ?? '(no name)'}</td>
    <td><code>${key.displayPrefix}…</code></td>
    <td>${key.planId}</td>
    <td>${when(key.createdAt)}</td>
    <td>${when(key.lastUsedAt)}</td>
    <td class="status-${key.status}">${key.status}${key.status === 'active' && key.expiresAt !== null ? html` (until ${when(key.expiresAt)})` : ''}</td>
    <td>${key.requestsThisHour} / ${limit ?? '?'}</td>
    <td class="actions"><a href="${DASHBOARD}/keys/${key.id}/usage">Usage</a> ${actions}</td>
  </tr>`;
}

/** The page that shows a new key, once: it is never stored, so it cannot be shown again. */
function newKeyPage(res: Response, account: Account, key: string, title: string, extra?: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.send(
    page({
      title,
      email: account.email,
      body: html`<div class="secret">
          <label for="new-key">Your new key</label>
          <input id="new-key" readonly value="${key}" spellcheck="false" autocomplete="off">
          <button type="button" data-copy="new-key">Copy</button>
        </div>
        <p class="notice info" role="status"><strong>Copy it now: it will not be shown again.</strong> Only a hash of it is kept. ${extra ?? ''}</p>
        <p><a href="${DASHBOARD}/keys">Back to your keys</a></p>`,
    }),
  );
}

/** The keys page and its actions: create, revoke (after a confirmation), rotate, and usage. */
export function keysPages(deps: DashboardDeps): Router {
  const router = strictRouter();
  const account = (res: Response) => signedIn(res)!;

  router.get(
    '/keys',
    handle(async (req, res) => {
      const me = account(res);
      const at = deps.clock.now();
      const [keys, limit] = await Promise.all([listAccountKeys(deps.database, me.id, at), planLimit(deps, me.planId)]);
      const shown = noticeOf(NOTICES, req.query.notice);
      res.send(
        page({
          title: 'API keys',
          email: me.email,
          body: html`${notice(shown, 'info')}
            <p>Plan <strong>${me.planId}</strong>: ${limit ?? '?'} requests per hour per key. Send a key as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
            <div class="scroll"><table>
              <thead><tr><th>Name</th><th>Key</th><th>Plan</th><th>Created</th><th>Last used</th><th>Status</th><th>This hour</th><th>Actions</th></tr></thead>
              <tbody>${keys.length === 0 ? html`<tr><td colspan="8">No keys yet.</td></tr>` : keys.map((key) => keyRow(key, limit))}</tbody>
            </table></div>
            <h2>Create a key</h2>
            <form class="stack" method="post" action="${DASHBOARD}/keys">
              <label>Key name <input name="name" maxlength="${NAME_MAX}" required placeholder="e.g. nightly export"></label>
              <label>Expires <select name="expires">${KEY_EXPIRY_DAYS.map((days) => html`<option value="${days ?? 'never'}">${days === null ? 'never' : `in ${days} days`}</option>`)}</select></label>
              <button type="submit">Create key</button>
            </form>`,
        }),
      );
    }),
  );

  router.post(
    '/keys',
    handle(async (req, res) => {
      const me = account(res);
      const name = field(req, 'name').trim();
      const expires = field(req, 'expires');
      const days = KEY_EXPIRY_DAYS.find((option) => String(option ?? 'never') === expires);
      if (name === '' || name.length > NAME_MAX || days === undefined) {
        res.status(400).send(
          page({
            title: 'API keys',
            email: me.email,
            body: html`${notice(`Give the key a name of 1 to ${NAME_MAX} characters and choose when it expires.`)}<p><a href="${DASHBOARD}/keys">Back to your keys</a></p>`,
          }),
        );
        return;
      }
      const created = await createAccountKey(deps.database, { accountId: me.id, name, expiresInDays: days, at: deps.clock.now(), ip: clientAddress(req) });
      newKeyPage(res, me, created.key, 'Key created');
    }),
  );

  const ownKey = async (res: Response, keyId: string) => (await listAccountKeys(deps.database, account(res).id, deps.clock.now())).find((key) => key.id === keyId);
  const missing = (res: Response) => {
    res.status(404).send(page({ title: 'No such key', email: account(res).email, body: html`<p>This account has no such key. <a href="${DASHBOARD}/keys">Back to your keys</a></p>` }));
  };
  /** The active key of the path, or undefined after answering 404. */
  const activeKey = async (req: Request, res: Response) => {
    const key = await ownKey(res, req.params.id ?? '');
    if (key?.status === 'active') return key;
    missing(res);
    return undefined;
  };

  router.get(
    '/keys/:id/revoke',
    handle(async (req, res) => {
      const key = await activeKey(req, res);
      if (key === undefined) return;
      res.send(
        page({
          title: 'Revoke this key?',
          email: account(res).email,
          body: html`<p>Requests with <strong>${key.name ?? '(no name)'}</strong> (<code>${key.displayPrefix}…</code>) will be refused from the next one, on every instance. This cannot be undone.</p>
            <form method="post" action="${DASHBOARD}/keys/${key.id}/revoke"><button type="submit" class="danger">Revoke</button> <a href="${DASHBOARD}/keys">Cancel</a></form>`,
        }),
      );
    }),
  );

  router.post(
    '/keys/:id/revoke',
    handle(async (req, res) => {
      const revoked = await revokeAccountKey(deps.database, { accountId: account(res).id, keyId: req.params.id ?? '', at: deps.clock.now(), ip: clientAddress(req) });
      if (!revoked) {
        missing(res);
        return;
      }
      res.redirect(303, `${DASHBOARD}/keys?notice=revoked`);
    }),
  );

  router.get(
    '/keys/:id/rotate',
    handle(async (req, res) => {
      const key = await activeKey(req, res);
      if (key === undefined) return;
      res.send(
        page({
          title: 'Rotate this key',
          email: account(res).email,
          body: html`<p>A new key replaces <strong>${key.name ?? '(no name)'}</strong> (<code>${key.displayPrefix}…</code>). Choose how long the old one keeps working, while you deploy the new one.</p>
            <form class="stack" method="post" action="${DASHBOARD}/keys/${key.id}/rotate">
              <label>Old key keeps working <select name="overlap">
                <option value="none">no longer: it stops now</option><option value="1h">for 1 hour</option><option value="24h">for 24 hours</option>
              </select></label>
              <button type="submit">Rotate</button>
            </form>`,
        }),
      );
    }),
  );

  router.post(
    '/keys/:id/rotate',
    handle(async (req, res) => {
      const overlap = field(req, 'overlap');
      if (!Object.hasOwn(ROTATION_OVERLAPS, overlap)) {
        missing(res);
        return;
      }
      const rotated = await rotateAccountKey(deps.database, {
        accountId: account(res).id,
        keyId: req.params.id ?? '',
        overlap: overlap as RotationOverlap,
        at: deps.clock.now(),
        ip: clientAddress(req),
      });
      if (rotated === undefined) {
        missing(res);
        return;
      }
      const until = overlap === 'none' ? 'The old key has stopped working.' : `The old key keeps working until ${when(rotated.oldKeyUntil)}.`;
      newKeyPage(res, account(res), rotated.key, 'Key rotated', until);
    }),
  );

  router.get(
    '/keys/:id/usage',
    handle(async (req, res) => {
      const key = await ownKey(res, req.params.id ?? '');
      if (key === undefined) {
        missing(res);
        return;
      }
      const hours = await lastDayOfUsage(deps.database, key.id, deps.clock.now());
      res.send(
        page({
          title: `Usage of ${key.name ?? key.displayPrefix}`,
          email: account(res).email,
          body: html`<p>Requests per hour over the last 24 hours (UTC). Counts reach this page within a few seconds.</p>
            ${usageChart(hours)}
            <h2>By hour</h2>
            <div class="scroll"><table>
              <thead><tr><th>Hour (UTC)</th><th>Requests</th><th>Rows returned</th></tr></thead>
              <tbody>${hours.map((hour) => html`<tr><td>${hour.hour.toISOString().slice(0, 13).replace('T', ' ')}:00</td><td>${hour.requests}</td><td>${hour.rows}</td></tr>`)}</tbody>
            </table></div>
            <p><a href="${DASHBOARD}/keys">Back to your keys</a></p>`,
        }),
      );
    }),
  );
  return router;
}
