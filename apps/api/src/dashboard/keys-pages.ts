import { findPlan } from '@domain-index/accounts/plan-store';
import type { Database } from '@domain-index/db';
import type { Request, Response, Router } from 'express';
import { strictRouter } from '../http/strict-router';
import {
  createAccountKey,
  KEY_EXPIRY_DAYS,
  listAccountKeys,
  revokeAccountKey,
  rotateAccountKey,
  ROTATION_OVERLAPS,
  type AccountKey,
  type RotationOverlap,
  type WithNewKey,
} from '@domain-index/accounts/account-keys';
import type { Account } from '@domain-index/accounts/account-store';
import { clientAddress } from '../http/client-address';
import { handle, sessionToken, signedIn, type DashboardDeps } from './dashboard-deps';
import { html, type SafeHtml } from '@domain-index/html/html';
import {
  FormAlreadyPosted,
  isFormToken,
  newFormToken,
  notShownReason,
  revealOfForm,
  storeReveal,
  takeReveal,
  type KeyRevealKind,
} from './key-reveal';
import { keyStateCell } from './key-state';
import { webhooksOffNotice } from './alerts/webhooks-off-notice';
import { cardTable, cell, count, DASHBOARD, notice, noticeOf, page, utc } from './layout';
import { databaseOf } from '../http/request-deadline';

const NAME_MAX = 60;
/** Fixed messages shown after a redirect, chosen by a code so that no text is reflected. */
const NOTICES = new Map([
  ['revoked', 'The key was revoked. It is refused from the next request on.'],
]);
const SECTION = '/keys';

const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};
const keyName = (key: Pick<AccountKey, 'name'>) => key.name ?? '(no name)';

/** The plan's limit and window, as the keys and usage pages show them. */
export async function planLimit(
  database: Database,
  planId: string,
): Promise<{ limit: number; windowSeconds: number } | undefined> {
  const plan = await findPlan(database, planId);
  return plan && { limit: plan.requestsPerWindow, windowSeconds: plan.windowSeconds };
}

/** The links of what can be done with a key: always its usage and request log; rotate and revoke while it works. */
function keyActions(key: AccountKey): SafeHtml {
  return html`<div class="actions">
    <a class="button" href="${DASHBOARD}/keys/${key.id}/usage">Usage</a>
    <a class="button" href="${DASHBOARD}/keys/${key.id}/requests">Requests</a>
    ${key.status === 'active' && key.usable ? html`<a class="button" href="${DASHBOARD}/keys/${key.id}/rotate">Rotate</a>` : ''}
    ${key.usable ? html`<a class="button danger" href="${DASHBOARD}/keys/${key.id}/revoke">Revoke</a>` : ''}
  </div>`;
}

function keyRow(key: AccountKey, limit: number | undefined, email: string): SafeHtml {
  const refused =
    key.thisHour.refused === 0
      ? ''
      : html`<span class="detail">+${count(key.thisHour.refused)} refused (429)</span>`;
  return html`<tr role="row">
    ${cell('Key', html`<strong class="wrap">${keyName(key)}</strong><code class="detail">${key.displayPrefix}…</code>`)}
    ${cell('Status', keyStateCell(key, email))}
    ${cell('Created', html`${utc(key.createdAt)}<span class="detail">last used ${utc(key.lastUsedAt)}</span>`, 'time')}
    ${cell('This hour', html`${count(key.thisHour.counted)} / ${limit === undefined ? '?' : count(limit)}${refused}`, 'num')}
    ${cell('Actions', keyActions(key))}
  </tr>`;
}

/** The form token a form carries, or undefined after answering 400 (a form from before this version, or hand-made). */
function formToken(req: Request, res: Response, account: Account): string | undefined {
  const token = field(req, 'form_token');
  if (isFormToken(token)) return token;
  res.status(400).send(
    page({
      title: 'This form has expired',
      email: account.email,
      section: SECTION,
      body: html`<p>
        Open the page again and send its form from there.
        <a href="${DASHBOARD}/keys">Back to your keys</a>
      </p>`,
    }),
  );
  return undefined;
}

/**
 * The keys page and its actions: create and rotate (each answered with a redirect to a page that
 * shows the new key once, so a reload or a second post makes no second key), revoke (after a
 * confirmation).
 */
export function keysPages(deps: DashboardDeps): Router {
  const router = strictRouter();
  const account = (res: Response) => signedIn(res)!;

  router.get(
    '/keys',
    handle(async (req, res) => {
      const me = account(res);
      const [keys, plan, webhooksOff] = await Promise.all([
        listAccountKeys(databaseOf(res, deps), me.id, deps.clock.now()),
        planLimit(databaseOf(res, deps), me.planId),
        webhooksOffNotice(databaseOf(res, deps), me.id),
      ]);
      const hourly = plan?.windowSeconds === 3600;
      res.send(
        page({
          title: 'API keys',
          email: me.email,
          section: SECTION,
          body: html`${webhooksOff} ${notice(noticeOf(NOTICES, req.query.notice), 'info')}
            <p>
              Plan <strong>${me.planId}</strong>: ${plan === undefined ? '?' : count(plan.limit)}
              requests per ${hourly ? 'hour' : `${plan?.windowSeconds ?? '?'} s`} per key. Send a
              key as <code>Authorization: Bearer &lt;key&gt;</code>.
            </p>
            ${cardTable({
              label: 'API keys',
              columns: [
                { title: 'Key' },
                { title: 'Status' },
                { title: 'Created' },
                { title: 'This hour', className: 'num' },
                { title: 'Actions' },
              ],
              rows: keys.map((key) => keyRow(key, plan?.limit, me.email)),
              empty: 'No keys yet: create one below.',
            })}
            <p class="detail">
              "This hour" counts what the rate limit counts: the requests it let through this hour
              (UTC), whatever their answer; requests it refused with 429 are shown apart. Counts
              reach this page within a few seconds. Times are UTC.
            </p>
            <h2>Create a key</h2>
            <form class="stack" method="post" action="${DASHBOARD}/keys">
              <input type="hidden" name="form_token" value="${newFormToken()}" />
              <label
                >Key name
                <input
                  name="name"
                  maxlength="${NAME_MAX}"
                  required
                  placeholder="e.g. nightly export"
              /></label>
              <label
                >Expires
                <select name="expires">
                  ${KEY_EXPIRY_DAYS.map((days) => html`<option value="${days ?? 'never'}">${days === null ? 'never' : `in ${days} days`}</option>`)}
                </select></label
              >
              <button type="submit">Create key</button>
            </form>`,
        }),
      );
    }),
  );

  /** The answer to a form that made a key: the page that shows it, by redirect (post, redirect, get). */
  const toReveal = (res: Response, revealId: string) =>
    res.redirect(303, `${DASHBOARD}/keys/new/${revealId}`);
  /**
   * Makes a key for a form once: a form posted again after its key was made goes to that key's
   * page; one posted again while the first is still being made waits for it (storeReveal), then
   * goes there too.
   */
  const oncePerForm = async (
    res: Response,
    token: string,
    make: (store: (kind: KeyRevealKind) => WithNewKey) => Promise<void>,
  ): Promise<string | undefined> => {
    const me = account(res);
    const earlier = await revealOfForm(databaseOf(res, deps), me.id, token, deps.clock.now());
    if (earlier !== undefined) return earlier;
    let revealId: string | undefined;
    try {
      await make((kind) => async (tx, created) => {
        revealId = await storeReveal(tx, {
          accountId: me.id,
          formToken: token,
          sessionToken: sessionToken(res)!,
          kind,
          keyId: created.id,
          key: created.key,
          at: deps.clock.now(),
        });
      });
    } catch (error) {
      if (!(error instanceof FormAlreadyPosted)) throw error;
      return revealOfForm(databaseOf(res, deps), me.id, token, deps.clock.now());
    }
    // Nothing made: a concurrent post of this form may have rotated the key first (this one
    // waited on its lock, then found it rotated); its page is this post's answer too.
    return revealId ?? revealOfForm(databaseOf(res, deps), me.id, token, deps.clock.now());
  };

  router.post(
    '/keys',
    handle(async (req, res) => {
      const me = account(res);
      const token = formToken(req, res, me);
      if (token === undefined) return;
      const name = field(req, 'name').trim();
      const expires = field(req, 'expires');
      const days = KEY_EXPIRY_DAYS.find((option) => String(option ?? 'never') === expires);
      if (name === '' || name.length > NAME_MAX || days === undefined) {
        res.status(400).send(
          page({
            title: 'API keys',
            email: me.email,
            section: SECTION,
            body: html`${notice(`Give the key a name of 1 to ${NAME_MAX} characters and choose when it expires.`)}
              <p><a href="${DASHBOARD}/keys">Back to your keys</a></p>`,
          }),
        );
        return;
      }
      const revealId = await oncePerForm(res, token, async (store) => {
        await createAccountKey(
          databaseOf(res, deps),
          {
            accountId: me.id,
            name,
            expiresInDays: days,
            at: deps.clock.now(),
            ip: clientAddress(req),
          },
          store('created'),
        );
      });
      if (revealId === undefined) throw new Error('a created key has no page to show it');
      toReveal(res, revealId);
    }),
  );

  const ownKey = async (res: Response, keyId: string) =>
    (await listAccountKeys(databaseOf(res, deps), account(res).id, deps.clock.now())).find(
      (key) => key.id === keyId,
    );
  const missing = (res: Response, what = 'This account has no such key.') => {
    res
      .status(404)
      .send(
        page({
          title: 'No such key',
          email: account(res).email,
          section: SECTION,
          body: html`<p>${what} <a href="${DASHBOARD}/keys">Back to your keys</a></p>`,
        }),
      );
  };

  router.get(
    '/keys/new/:reveal',
    handle(async (req, res) => {
      const me = account(res);
      const reveal = await takeReveal(databaseOf(res, deps), {
        id: req.params.reveal ?? '',
        accountId: me.id,
        sessionToken: sessionToken(res)!,
        at: deps.clock.now(),
        kinds: ['created', 'rotated'],
      });
      if (reveal === undefined) {
        missing(res, 'There is no such new key.');
        return;
      }
      const keys = await listAccountKeys(databaseOf(res, deps), me.id, deps.clock.now());
      const key = keys.find((one) => one.id === reveal.keyId);
      const replaced = keys.find((one) => one.replacedBy?.id === reveal.keyId);
      const title = reveal.kind === 'rotated' ? 'Key rotated' : 'Key created';
      const named =
        key === undefined
          ? html``
          : html`<strong>${keyName(key)}</strong> (<code>${key.displayPrefix}…</code>)`;
      if (reveal.shown !== 'now') {
        const why = notShownReason(
          reveal.shown,
          'It was shown once, when it was made, and cannot be shown again: only a hash of it is kept.',
        );
        res.send(
          page({
            title,
            email: me.email,
            section: SECTION,
            body: html`<p>The key ${named} exists and works. ${why}</p>
              ${
                key?.status === 'active' && key.usable
                  ? html`<p>
                      If you did not copy it,
                      <a href="${DASHBOARD}/keys/${key.id}/rotate">rotate it</a> for a new one, or
                      <a href="${DASHBOARD}/keys/${key.id}/revoke">revoke it</a>.
                    </p>`
                  : ''
              }
              <p><a href="${DASHBOARD}/keys">Back to your keys</a></p>`,
          }),
        );
        return;
      }
      const oldKey =
        replaced === undefined
          ? ''
          : replaced.usable
            ? html`The old key (<code>${replaced.displayPrefix}…</code>) keeps working until
              ${utc(replaced.expiresAt)}.`
            : html`The old key (<code>${replaced.displayPrefix}…</code>) has stopped working.`;
      res.send(
        page({
          title,
          email: me.email,
          section: SECTION,
          body: html`<p>${named}</p>
            <div class="secret">
              <label for="new-key">Your new key</label>
              <input
                id="new-key"
                readonly
                value="${reveal.key}"
                spellcheck="false"
                autocomplete="off"
              />
              <button type="button" data-copy="new-key">Copy</button>
            </div>
            <p class="notice info" role="status">
              <strong>Copy it now: it will not be shown again.</strong> Only a hash of it is kept;
              reloading this page will not show it. ${oldKey}
            </p>
            <p><a href="${DASHBOARD}/keys">Back to your keys</a></p>`,
        }),
      );
    }),
  );

  /** The key of the path while it works, or undefined after answering 404. */
  const usableKey = async (req: Request, res: Response) => {
    const key = await ownKey(res, req.params.id ?? '');
    if (key?.usable === true) return key;
    missing(res, 'This account has no such key that still works.');
    return undefined;
  };

  router.get(
    '/keys/:id/revoke',
    handle(async (req, res) => {
      const key = await usableKey(req, res);
      if (key === undefined) return;
      res.send(
        page({
          title: 'Revoke this key?',
          email: account(res).email,
          section: SECTION,
          body: html`<p>
              Requests with <strong>${keyName(key)}</strong> (<code>${key.displayPrefix}…</code>)
              will be refused from the next one, on every instance. This cannot be undone.
            </p>
            <form method="post" action="${DASHBOARD}/keys/${key.id}/revoke">
              <button type="submit" class="danger">Revoke</button>
              <a href="${DASHBOARD}/keys">Cancel</a>
            </form>`,
        }),
      );
    }),
  );

  router.post(
    '/keys/:id/revoke',
    handle(async (req, res) => {
      const revoked = await revokeAccountKey(databaseOf(res, deps), {
        accountId: account(res).id,
        keyId: req.params.id ?? '',
        at: deps.clock.now(),
        ip: clientAddress(req),
      });
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
      const key = await ownKey(res, req.params.id ?? '');
      if (key?.status !== 'active' || !key.usable) {
        missing(
          res,
          'This account has no such active key: a rotated, revoked or expired key cannot be rotated.',
        );
        return;
      }
      res.send(
        page({
          title: 'Rotate this key',
          email: account(res).email,
          section: SECTION,
          body: html`<p>
              A new key replaces
              <strong>${keyName(key)}</strong> (<code>${key.displayPrefix}…</code>). Choose how long
              the old one keeps working, while you deploy the new one.
            </p>
            <form class="stack" method="post" action="${DASHBOARD}/keys/${key.id}/rotate">
              <input type="hidden" name="form_token" value="${newFormToken()}" />
              <label
                >Old key keeps working
                <select name="overlap">
                  <option value="none">no longer: it stops now</option>
                  <option value="1h">for 1 hour</option>
                  <option value="24h">for 24 hours</option>
                </select></label
              >
              <button type="submit">Rotate</button>
            </form>`,
        }),
      );
    }),
  );

  router.post(
    '/keys/:id/rotate',
    handle(async (req, res) => {
      const me = account(res);
      const token = formToken(req, res, me);
      if (token === undefined) return;
      const overlap = field(req, 'overlap');
      if (!Object.hasOwn(ROTATION_OVERLAPS, overlap)) {
        missing(res);
        return;
      }
      // undefined when the key cannot be rotated: then nothing was stored either
      const revealId = await oncePerForm(res, token, async (store) => {
        await rotateAccountKey(
          databaseOf(res, deps),
          {
            accountId: me.id,
            keyId: req.params.id ?? '',
            overlap: overlap as RotationOverlap,
            at: deps.clock.now(),
            ip: clientAddress(req),
          },
          store('rotated'),
        );
      });
      if (revealId === undefined) {
        missing(
          res,
          'This account has no such active key: a rotated, revoked or expired key cannot be rotated.',
        );
        return;
      }
      toReveal(res, revealId);
    }),
  );
  return router;
}
