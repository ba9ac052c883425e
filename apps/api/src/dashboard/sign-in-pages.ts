import type { Request, Response, Router } from 'express';
import { failureLine } from '@domain-index/runtime/failure-line';
import { accountForSignIn, accountOfLink, createAccount, EMAIL_MAX_LENGTH, EmailTakenError, normaliseEmail, setPasswordWithLink } from '@domain-index/accounts/account-store';
import { recordAudit, type AuditKind } from '@domain-index/audit/audit';
import { decoyHash, passwordProblem, PASSWORD_MIN_LENGTH } from '@domain-index/accounts/passwords';
import { endSession, startSession } from '@domain-index/accounts/sessions';
import { clientAddress } from '../http/client-address';
import { strictRouter } from '../http/strict-router';
import { handle, signedIn, type DashboardDeps } from './dashboard-deps';
import { html } from '@domain-index/html/html';
import { DASHBOARD, notice, noticeOf, page } from './layout';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from './session-cookie';
import { databaseOf } from '../http/request-deadline';

/** One answer for an unknown email, a wrong password and a disabled account. */
const SIGN_IN_FAILED = 'The email or password is not right.';
const EMAIL_TOO_LONG = `An email address has at most ${EMAIL_MAX_LENGTH} characters.`;

/** What the sign-in page can say after a redirect, chosen by `?notice=`. */
const SIGN_IN_NOTICES = new Map([
  // the same words whether or not the email had an account: sign-up must not tell
  ['signed-up', 'Thank you. If that email had no account, it has one now with the password you chose: sign in with them. If it had one, nothing about it changed.'],
  ['signed-out-everywhere', 'You are signed out everywhere: every session of your account has ended.'],
  // the same words whether or not the email has an account
  ['reset-sent', 'If that email has an account, a link that sets a new password is on its way to it. It works once, for 24 hours.'],
]);

const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

function signInPage(signupOpen: boolean, message?: string, email = '', kind: 'error' | 'info' = 'error'): string {
  return page({
    title: 'Sign in',
    body: html`${notice(message, kind)}
      <form class="stack" method="post" action="${DASHBOARD}/sign-in">
        <label>Email <input type="email" name="email" autocomplete="username" maxlength="${EMAIL_MAX_LENGTH}" required value="${email}"></label>
        <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
        <button type="submit">Sign in</button>
      </form>
      <p><a href="${DASHBOARD}/forgot-password">Forgot your password?</a></p>
      ${signupOpen ? html`<p>No account yet? <a href="${DASHBOARD}/sign-up">Create one</a>.</p>` : ''}`,
  });
}

function setPasswordPage(token: string, message?: string): string {
  return page({
    title: 'Set your password',
    body: html`${notice(message)}
      <form class="stack" method="post" action="${DASHBOARD}/set-password/${token}">
        <label>Password <input type="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required></label>
        <p>At least ${PASSWORD_MIN_LENGTH} characters, and not a common one. A few unrelated words are easiest to remember.</p>
        <button type="submit">Set password</button>
      </form>`,
  });
}

/** A used or expired link: the way on is signing in, or a new link. */
const LINK_GONE = page({
  title: 'This link no longer works',
  body: html`<p>A password link works once, for 24 hours, and this one has been used or has expired.
    If you set your password with it, sign in with that password.</p>
    <p><a class="button" href="${DASHBOARD}/sign-in">Sign in</a> <a class="button" href="${DASHBOARD}/forgot-password">Get a new link</a></p>`,
});

/** Sign-in, sign-out, the one-time set-password link, and sign-up when the operator opened it. */
export function signInPages(deps: DashboardDeps): Router {
  const router = strictRouter();
  const secure = deps.publicUrl.startsWith('https://');

  const signInAs = async (req: Request, res: Response, accountId: string) => {
    const token = await startSession(databaseOf(res, deps), accountId, deps.clock.now(), { userAgent: req.get('user-agent'), ip: clientAddress(req) });
    setSessionCookie(res, token, secure);
    res.redirect(303, `${DASHBOARD}/keys`);
  };

  /** An audit entry written after the answer was sent, so that writing it takes no time the answer shows. */
  const auditLater = (entry: { accountId: string; at: Date; kind: AuditKind; ip: string }) => {
    // on the database itself: written after the answer, it is no part of the request's deadline
    recordAudit(deps.database.db, entry).catch((error: unknown) => {
      deps.logger.error({ err: error, accountId: entry.accountId, kind: entry.kind }, 'could not record an audit entry');
    });
  };

  /**
   * Counts a set-password or sign-up post against its client address before anything is
   * hashed; false after answering 429 (or 503 when the limiter's store is down).
   */
  const newPasswordAllowed = async (req: Request, res: Response, form: (message: string) => string): Promise<boolean> => {
    let gate;
    try {
      gate = await deps.signInLimiter.newPassword(clientAddress(req));
    } catch (error) {
      deps.logger.warn({ failure: failureLine(error) }, 'the sign-in limiter is unavailable: password form refused');
      res.status(503).setHeader('Retry-After', '5').send(form('This is unavailable right now. Please try again in a moment.'));
      return false;
    }
    if (gate.allowed) return true;
    res.status(429).setHeader('Retry-After', String(gate.retryAfterSeconds));
    res.send(form(`Too many attempts from your address. Try again in ${Math.ceil(gate.retryAfterSeconds / 60)} minutes.`));
    return false;
  };

  router.get('/sign-in', (req, res) => {
    const shown = noticeOf(SIGN_IN_NOTICES, req.query.notice);
    res.send(signInPage(deps.signupOpen, shown, '', 'info'));
  });

  router.post(
    '/sign-in',
    handle(async (req, res) => {
      const typed = field(req, 'email').trim();
      // Refused before any counter is touched: the store never holds more than a hash of what was typed.
      if (typed.length > EMAIL_MAX_LENGTH) {
        res.status(400).send(signInPage(deps.signupOpen, EMAIL_TOO_LONG));
        return;
      }
      const email = normaliseEmail(typed) ?? typed.toLowerCase();
      const password = field(req, 'password');
      const address = clientAddress(req);
      let gate;
      try {
        // The attempt is counted before its password is checked: parallel guesses cannot
        // all get through a check that ran before any of them failed.
        gate = await deps.signInLimiter.attempt(email, address);
      } catch (error) {
        deps.logger.warn({ failure: failureLine(error) }, 'the sign-in limiter is unavailable: sign-in refused');
        res.status(503).setHeader('Retry-After', '5').send(signInPage(deps.signupOpen, 'Signing in is unavailable right now. Please try again in a moment.', email));
        return;
      }
      if (!gate.allowed) {
        res.status(429).setHeader('Retry-After', String(gate.retryAfterSeconds));
        res.send(signInPage(deps.signupOpen, `Too many failed attempts from your address. Try again in ${Math.ceil(gate.retryAfterSeconds / 60)} minutes.`, email));
        return;
      }
      const account = await accountForSignIn(databaseOf(res, deps), email);
      // Verified against a decoy when there is no password to check, so both cost the same.
      const matches = await deps.passwords.verify(account?.passwordHash ?? (await decoyHash()), password);
      const at = deps.clock.now();
      if (account === undefined || account.passwordHash === null || account.disabled || !matches) {
        // Answered before the audit entry is written, which only a known account gets: an
        // unknown email and a wrong password take the same time until the answer.
        res.status(401).send(signInPage(deps.signupOpen, SIGN_IN_FAILED, email));
        if (account !== undefined) auditLater({ accountId: account.id, at, kind: 'sign_in_failed', ip: address });
        return;
      }
      await deps.signInLimiter.succeeded(email, address).catch(() => undefined);
      await recordAudit(databaseOf(res, deps).db, { accountId: account.id, at, kind: 'sign_in', ip: address });
      await signInAs(req, res, account.id);
    }),
  );

  router.post(
    '/sign-out',
    handle(async (req, res) => {
      const token = readSessionCookie(req, secure);
      const account = signedIn(res);
      if (account !== undefined) await recordAudit(databaseOf(res, deps).db, { accountId: account.id, at: deps.clock.now(), kind: 'signed_out', ip: clientAddress(req) });
      if (token !== undefined) await endSession(databaseOf(res, deps), token, deps.clock.now());
      clearSessionCookie(res, secure);
      res.redirect(303, `${DASHBOARD}/sign-in`);
    }),
  );

  router.get(
    '/set-password/:token',
    handle(async (req, res) => {
      const token = req.params.token ?? '';
      const account = await accountOfLink(databaseOf(res, deps), token, deps.clock.now());
      if (account === undefined) {
        res.status(410).send(LINK_GONE);
        return;
      }
      res.send(setPasswordPage(token, undefined));
    }),
  );

  router.post(
    '/set-password/:token',
    handle(async (req, res) => {
      const token = req.params.token ?? '';
      if (!(await newPasswordAllowed(req, res, (message) => setPasswordPage(token, message)))) return;
      const at = deps.clock.now();
      // The link is checked before the costly hash: a made-up token costs one indexed read.
      const account = await accountOfLink(databaseOf(res, deps), token, at);
      if (account === undefined) {
        res.status(410).send(LINK_GONE);
        return;
      }
      const password = field(req, 'password');
      const problem = await passwordProblem(password, [account.email]);
      if (problem !== undefined) {
        res.status(400).send(setPasswordPage(token, problem));
        return;
      }
      // Spent atomically here: of two posts racing with one link, one wins and the other gets 410.
      const accountId = await setPasswordWithLink(databaseOf(res, deps), token, await deps.passwords.hash(password), at);
      if (accountId === undefined) {
        res.status(410).send(LINK_GONE);
        return;
      }
      await recordAudit(databaseOf(res, deps).db, { accountId, at, kind: 'password_changed', ip: clientAddress(req) });
      await signInAs(req, res, accountId);
    }),
  );

  if (deps.signupOpen) {
    const signUpPage = (message?: string, email = '') =>
      page({
        title: 'Create an account',
        body: html`${notice(message)}
          <form class="stack" method="post" action="${DASHBOARD}/sign-up">
            <label>Email <input type="email" name="email" autocomplete="username" maxlength="${EMAIL_MAX_LENGTH}" required value="${email}"></label>
            <label>Password <input type="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required></label>
            <p>At least ${PASSWORD_MIN_LENGTH} characters, and not a common one. A few unrelated words are easiest to remember.</p>
            <button type="submit">Create account</button>
          </form>`,
      });
    router.get('/sign-up', (_req, res) => {
      res.send(signUpPage());
    });
    /**
     * One answer whether or not the email has an account (a redirect to sign in, with the same
     * words), after the same work: the password is hashed and the insert tried either way, and
     * the audit entry, which differs, is written after the answer.
     */
    router.post(
      '/sign-up',
      handle(async (req, res) => {
        const typed = field(req, 'email');
        if (typed.trim().length > EMAIL_MAX_LENGTH) {
          res.status(400).send(signUpPage(EMAIL_TOO_LONG));
          return;
        }
        if (!(await newPasswordAllowed(req, res, (message) => signUpPage(message, typed)))) return;
        const email = normaliseEmail(typed);
        const password = field(req, 'password');
        if (email === undefined) {
          res.status(400).send(signUpPage('Enter an email address like name@example.com.', typed));
          return;
        }
        const problem = await passwordProblem(password, [email]);
        if (problem !== undefined) {
          res.status(400).send(signUpPage(problem, email));
          return;
        }
        const at = deps.clock.now();
        const ip = clientAddress(req);
        const passwordHash = await deps.passwords.hash(password);
        let created: string | undefined;
        try {
          created = (await createAccount(databaseOf(res, deps), { email, planId: 'free', at, passwordHash })).id;
        } catch (error) {
          if (!(error instanceof EmailTakenError)) throw error;
        }
        res.redirect(303, `${DASHBOARD}/sign-in?notice=signed-up`);
        if (created !== undefined) {
          auditLater({ accountId: created, at, kind: 'password_changed', ip });
          return;
        }
        // The owner's audit log tells them someone tried their email (looked up after the answer).
        const existing = await accountForSignIn(databaseOf(res, deps), email).catch(() => undefined);
        if (existing !== undefined) auditLater({ accountId: existing.id, at, kind: 'sign_up_existing', ip });
      }),
    );
  }
  return router;
}
