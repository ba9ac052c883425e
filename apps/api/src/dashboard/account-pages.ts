import type { Request, Response, Router } from 'express';
import { failureLine } from '@domain-index/runtime/failure-line';
import { changePassword, currentPasswordHash } from '@domain-index/accounts/account-store';
import { recordAudit, type AuditKind } from '@domain-index/audit/audit';
import { decoyHash, passwordProblem, PASSWORD_MIN_LENGTH } from '@domain-index/accounts/passwords';
import { endSessionByHandle, endSessionsOf, listSessions } from '@domain-index/accounts/sessions';
import { clientAddress } from '../http/client-address';
import { strictRouter } from '../http/strict-router';
import { handle, sessionToken, signedIn, type DashboardDeps } from './dashboard-deps';
import { describeDevice } from './device';
import { html } from '@domain-index/html/html';
import { DASHBOARD, notice, noticeOf, page } from './layout';
import { clearSessionCookie } from './session-cookie';
import { databaseOf } from '../http/request-deadline';

/** What the sessions page can say after a redirect, chosen by `?notice=`. */
const NOTICES = new Map([
  ['ended', 'That session has ended: its browser is signed out from its next request on.'],
  ['password-changed', 'Your password has changed. Every other session has ended; this one goes on.'],
]);

const when = (at: Date) => at.toISOString().slice(0, 16).replace('T', ' ');
const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};
const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

function passwordPage(email: string, message?: string): string {
  return page({
    title: 'Change your password',
    email,
    section: '/password',
    body: html`${notice(message)}
      <form class="stack" method="post" action="${DASHBOARD}/password">
        <input type="text" name="username" autocomplete="username" value="${email}" hidden>
        <label>Current password <input type="password" name="current" autocomplete="current-password" required></label>
        <label>New password <input type="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required></label>
        <p>At least ${PASSWORD_MIN_LENGTH} characters, and not a common one. Every other session of your account ends when it changes.</p>
        <button type="submit">Change password</button>
      </form>`,
  });
}

/**
 * The signed-in account's own pages: its sessions (device, address, last seen), each of which
 * it can end, or all at once; and a change of password, which needs the current one and ends
 * the other sessions.
 */
export function accountPages(deps: DashboardDeps): Router {
  const router = strictRouter();
  const secure = deps.publicUrl.startsWith('https://');
  const me = (res: Response) => signedIn(res)!;
  const token = (res: Response) => sessionToken(res)!;
  /** Written after the answer: a failure to write it is logged, not shown. */
  const auditLater = (entry: { accountId: string; at: Date; kind: AuditKind; ip: string; detail?: string }) => {
    // on the database itself: written after the answer, it is no part of the request's deadline
    recordAudit(deps.database.db, entry).catch((error: unknown) => {
      deps.logger.error({ err: error, accountId: entry.accountId, kind: entry.kind }, 'could not record an audit entry');
    });
  };

  router.get(
    '/sessions',
    handle(async (req, res) => {
      const account = me(res);
      const sessions = await listSessions(databaseOf(res, deps), account.id, token(res), deps.clock.now());
      res.send(
        page({
          title: 'Sessions',
          email: account.email,
          section: '/sessions',
          body: html`${notice(noticeOf(NOTICES, req.query.notice), 'info')}
            <p>Where your account is signed in. A session ends after 30 minutes without a request, 12 hours after sign-in, or when you end it here.</p>
            <ul class="sessions" aria-label="Sessions">${sessions.map(
              (session) => html`<li>
                <div><strong>${describeDevice(session.userAgent)}</strong>
                  <span class="detail">IP ${session.ip ?? '—'} · last seen ${when(session.lastSeenAt)} · signed in ${when(session.createdAt)}</span></div>
                ${
                  session.current
                    ? html`<strong>This session</strong>`
                    : html`<form method="post" action="${DASHBOARD}/sessions/${session.handle}/end"><button type="submit" class="quiet" aria-label="Sign out ${describeDevice(session.userAgent)} at ${session.ip ?? 'an unknown address'}">Sign out</button></form>`
                }
              </li>`,
            )}</ul>
            <p class="detail">Times are UTC.</p>
            <h2>Sign out everywhere</h2>
            <p>Ends every session of your account, this one too. Do it if you signed in on a device that is not yours, or lost one.</p>
            <form method="post" action="${DASHBOARD}/sessions/end-all"><button type="submit" class="danger">Sign out everywhere</button></form>`,
        }),
      );
    }),
  );

  router.post(
    '/sessions/end-all',
    handle(async (req, res) => {
      const account = me(res);
      const ended = await endSessionsOf(databaseOf(res, deps).db, account.id);
      clearSessionCookie(res, secure);
      res.redirect(303, `${DASHBOARD}/sign-in?notice=signed-out-everywhere`);
      auditLater({ accountId: account.id, at: deps.clock.now(), kind: 'signed_out_everywhere', ip: clientAddress(req), detail: `${plural(ended, 'session')} ended` });
    }),
  );

  router.post(
    '/sessions/:handle/end',
    handle(async (req, res) => {
      const account = me(res);
      const ended = await endSessionByHandle(databaseOf(res, deps), account.id, req.params.handle ?? '');
      if (!ended) {
        res.status(404).send(page({ title: 'No such session', email: account.email, body: html`<p>That session has ended already. <a href="${DASHBOARD}/sessions">Back to your sessions</a></p>` }));
        return;
      }
      res.redirect(303, `${DASHBOARD}/sessions?notice=ended`);
      auditLater({ accountId: account.id, at: deps.clock.now(), kind: 'session_ended', ip: clientAddress(req) });
    }),
  );

  router.get('/password', (_req, res) => {
    res.send(passwordPage(me(res).email));
  });

  router.post(
    '/password',
    handle(async (req, res) => {
      const account = me(res);
      const address = clientAddress(req);
      const password = field(req, 'password');
      const problem = await passwordProblem(password, [account.email]);
      if (problem !== undefined) {
        res.status(400).send(passwordPage(account.email, problem));
        return;
      }
      let gate;
      try {
        // Counted like a sign-in: a stolen session must not become a way to guess the password.
        gate = await deps.signInLimiter.attempt(account.email, address);
      } catch (error) {
        deps.logger.warn({ failure: failureLine(error) }, 'the sign-in limiter is unavailable: password change refused');
        res.status(503).setHeader('Retry-After', '5').send(passwordPage(account.email, 'Changing the password is unavailable right now. Please try again in a moment.'));
        return;
      }
      if (!gate.allowed) {
        res.status(429).setHeader('Retry-After', String(gate.retryAfterSeconds));
        res.send(passwordPage(account.email, `Too many failed attempts from your address. Try again in ${Math.ceil(gate.retryAfterSeconds / 60)} minutes.`));
        return;
      }
      const stored = await currentPasswordHash(databaseOf(res, deps), account.id);
      const matches = await deps.passwords.verify(stored ?? (await decoyHash()), field(req, 'current'));
      const at = deps.clock.now();
      if (stored === undefined || !matches) {
        res.status(401).send(passwordPage(account.email, 'The current password is not right.'));
        auditLater({ accountId: account.id, at, kind: 'password_change_failed', ip: address });
        return;
      }
      const ended = await changePassword(databaseOf(res, deps), account.id, await deps.passwords.hash(password), token(res));
      if (ended === undefined) {
        res.redirect(303, `${DASHBOARD}/sign-in`);
        return;
      }
      await deps.signInLimiter.succeeded(account.email, address).catch(() => undefined);
      await recordAudit(databaseOf(res, deps).db, { accountId: account.id, at, kind: 'password_changed', ip: address, detail: `changed in the dashboard; ${plural(ended, 'other session')} ended` });
      res.redirect(303, `${DASHBOARD}/sessions?notice=password-changed`);
    }),
  );
  return router;
}
