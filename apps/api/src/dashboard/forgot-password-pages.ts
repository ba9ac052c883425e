import type { Database } from '@domain-index/db';
import { failureLine } from '@domain-index/runtime/failure-line';
import type { Request, Router } from 'express';
import {
  accountForSignIn,
  EMAIL_MAX_LENGTH,
  issueLink,
  normaliseEmail,
} from '@domain-index/accounts/account-store';
import { lastAuditAt, recordAudit } from '@domain-index/audit/audit';
import { setPasswordLink } from '@domain-index/accounts/demo-account';
import { clientAddress } from '../http/client-address';
import { strictRouter } from '../http/strict-router';
import type { Mailer } from '@domain-index/mail/mailer';
import { handle, type DashboardDeps } from './dashboard-deps';
import { html } from '@domain-index/html/html';
import { DASHBOARD, notice, page } from './layout';

/** One mail per account this often at most, whoever asks: nobody can fill an inbox with links. */
const MAIL_EVERY_MS = 2 * 60_000;

/** When a reset link was last asked for the account (its audit entry), if ever. */
function lastResetAt(database: Database, accountId: string): Promise<Date | undefined> {
  return lastAuditAt(database, accountId, 'password_reset_requested');
}

const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

function askOperatorPage(): string {
  return page({
    title: 'Forgot your password?',
    body: html`<p>
        This server does not send mail, so it cannot send you a link. Ask your operator for a new
        one-time link that sets your password (they run
        <code>domain-index accounts reset-link &lt;your email&gt;</code>), then open it.
      </p>
      <p><a href="${DASHBOARD}/sign-in">Back to sign in</a></p>`,
  });
}

function forgotPage(message?: string, email = ''): string {
  return page({
    title: 'Forgot your password?',
    body: html`${notice(message)}
      <p>
        Enter the email of your account: a link that sets a new password goes there. It works once,
        for 24 hours.
      </p>
      <form class="stack" method="post" action="${DASHBOARD}/forgot-password">
        <label
          >Email
          <input
            type="email"
            name="email"
            autocomplete="username"
            maxlength="${EMAIL_MAX_LENGTH}"
            required
            value="${email}"
        /></label>
        <button type="submit">Send me a link</button>
      </form>
      <p><a href="${DASHBOARD}/sign-in">Back to sign in</a></p>`,
  });
}

/** The mail with a reset link: text and HTML, the link alone on its line. */
function resetMail(to: string, link: string) {
  return {
    to,
    subject: 'Set a new Domain Index password',
    text: `Someone (we hope you) asked for a new password for the Domain Index dashboard account ${to}.\n\nSet it here, within 24 hours (the link works once):\n\n${link}\n\nIf you did not ask, ignore this mail: your password has not changed.\n`,
    html: html`<p>
        Someone (we hope you) asked for a new password for the Domain Index dashboard account ${to}.
      </p>
      <p>
        <a href="${link}">Set a new password</a> within 24 hours (the link works once):<br />${link}
      </p>
      <p>If you did not ask, ignore this mail: your password has not changed.</p>`.text,
  };
}

/**
 * "Forgot password": with a mailer, a one-time link that sets a new password goes to the
 * account's email; without one, the page says to ask the operator. The answer is the same
 * whether or not the email has an account, and comes before the account is looked up: the link
 * is made and mailed after it, so neither the words nor the time tell.
 */
export function forgotPasswordPages(deps: DashboardDeps): Router {
  const router = strictRouter();
  const mailer: Mailer | undefined = deps.mailer;

  router.get('/forgot-password', (_req, res) => {
    res.send(mailer === undefined ? askOperatorPage() : forgotPage());
  });

  router.post(
    '/forgot-password',
    handle(async (req, res) => {
      if (mailer === undefined) {
        res.send(askOperatorPage());
        return;
      }
      const typed = field(req, 'email').trim();
      if (typed.length > EMAIL_MAX_LENGTH) {
        res
          .status(400)
          .send(forgotPage(`An email address has at most ${EMAIL_MAX_LENGTH} characters.`));
        return;
      }
      const email = normaliseEmail(typed);
      if (email === undefined) {
        res.status(400).send(forgotPage('Enter an email address like name@example.com.', typed));
        return;
      }
      const address = clientAddress(req);
      let gate;
      try {
        gate = await deps.signInLimiter.newPassword(address);
      } catch (error) {
        deps.logger.warn(
          { failure: failureLine(error) },
          'the sign-in limiter is unavailable: password reset refused',
        );
        res
          .status(503)
          .setHeader('Retry-After', '5')
          .send(forgotPage('This is unavailable right now. Please try again in a moment.', email));
        return;
      }
      if (!gate.allowed) {
        res.status(429).setHeader('Retry-After', String(gate.retryAfterSeconds));
        res.send(
          forgotPage(
            `Too many attempts from your address. Try again in ${Math.ceil(gate.retryAfterSeconds / 60)} minutes.`,
            email,
          ),
        );
        return;
      }
      res.redirect(303, `${DASHBOARD}/sign-in?notice=reset-sent`);
      void sendLink(deps, mailer, email, address).catch((error: unknown) => {
        deps.logger.error({ err: error }, 'could not send a password reset link');
      });
    }),
  );
  return router;
}

/**
 * Makes and mails a link for the account of `email`, if it has one, is enabled, and had none
 * mailed just now. Run after the answer (which says the same whatever the address), on the
 * database itself: no part of the request's deadline.
 */
async function sendLink(
  deps: DashboardDeps,
  mailer: Mailer,
  email: string,
  ip: string,
): Promise<void> {
  const account = await accountForSignIn(deps.database, email);
  if (account === undefined || account.disabled) return;
  const at = deps.clock.now();
  const latest = await lastResetAt(deps.database, account.id);
  if (latest !== undefined && at.getTime() - latest.getTime() < MAIL_EVERY_MS) return;
  // recorded before the mail goes, so that a request right after this one finds it and waits
  await recordAudit(deps.database.db, {
    accountId: account.id,
    at,
    kind: 'password_reset_requested',
    ip,
    detail: 'a one-time link was mailed to the account',
  });
  const link = setPasswordLink(`${deps.publicUrl}${DASHBOARD}`, await issueLink(deps.database, account.id, at));
  const sent = await mailer.send(resetMail(email, link));
  if (!sent.ok) {
    await recordAudit(deps.database.db, {
      accountId: account.id,
      at: deps.clock.now(),
      kind: 'password_reset_requested',
      ip,
      detail: `the link could not be mailed: ${sent.message}`,
    });
  }
}
