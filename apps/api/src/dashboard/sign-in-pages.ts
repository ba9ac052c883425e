import type { Request, Response, Router } from 'express';
import { strictRouter } from '../http/strict-router';
import { accountForSignIn, accountOfLink, createAccount, EMAIL_MAX_LENGTH, EmailTakenError, normaliseEmail, setPasswordWithLink } from '../accounts/account-store';
import { recordAudit } from '../accounts/audit';
import { decoyHash, passwordProblem, PASSWORD_MIN_LENGTH } from '../accounts/passwords';
import { endSession, startSession } from '../accounts/sessions';
import { clientAddress } from '../http/client-address';
import { handle, type DashboardDeps } from './dashboard-deps';
import { html } from './html';
import { DASHBOARD, notice, page } from './layout';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from './session-cookie';

/** One answer for an unknown email, a wrong password and a disabled account. */
const SIGN_IN_FAILED = 'The email or password is not right.';
const EMAIL_TOO_LONG = `An email address has at most ${EMAIL_MAX_LENGTH} characters.`;

const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

function signInPage(signupOpen: boolean, message?: string, email = ''): string {
  return page({
    title: 'Sign in',
    body: html`${notice(message)}
      <form class="stack" method="post" action="${DASHBOARD}/sign-in">
        <label>Email <input type="email" name="email" autocomplete="username" maxlength="${EMAIL_MAX_LENGTH}" required value="${email}"></label>
        <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
        <button type="submit">Sign in</button>
      </form>
      ${signupOpen ? html`<p>No account yet? <a href="${DASHBOARD}/sign-up">Create one</a>.</p>` : ''}`,
  });
}

function setPasswordPage(token: string, message?: string): string {
  return page({
    title: 'Set your password',
    body: html`${notice(message)}
      <form class="stack" method="post" action="${DASHBOARD}/set-password/${token}">
        <label>Password <input type="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required></label>
        <p>At least ${PASSWORD_MIN_LENGTH} characters. A long phrase is easiest to remember.</p>
        <button type="submit">Set password</button>
      </form>`,
  });
}

const LINK_GONE = page({
  title: 'This link no longer works',
  body: html`<p>A password link works once, for 24 hours. Ask your operator for a new one
    (<code>domain-index accounts reset-link</code>), then open it again.</p>`,
});

/** Sign-in, sign-out, the one-time set-password link, and sign-up when the operator opened it. */
export function signInPages(deps: DashboardDeps): Router {
  const router = strictRouter();
  const secure = deps.publicUrl.startsWith('https://');

  const signInAs = async (res: Response, accountId: string) => {
    const token = await startSession(deps.database, accountId, deps.clock.now());
    setSessionCookie(res, token, secure);
    res.redirect(303, `${DASHBOARD}/keys`);
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
      deps.logger.warn({ err: error }, 'the sign-in limiter is unavailable: password form refused');
      res.status(503).setHeader('Retry-After', '5').send(form('This is unavailable right now. Please try again in a moment.'));
      return false;
    }
    if (gate.allowed) return true;
    res.status(429).setHeader('Retry-After', String(gate.retryAfterSeconds));
    res.send(form(`Too many attempts from your address. Try again in ${Math.ceil(gate.retryAfterSeconds / 60)} minutes.`));
    return false;
  };

  router.get('/sign-in', (_req, res) => {
    res.send(signInPage(deps.signupOpen));
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
        deps.logger.warn({ err: error }, 'the sign-in limiter is unavailable: sign-in refused');
        res.status(503).setHeader('Retry-After', '5').send(signInPage(deps.signupOpen, 'Signing in is unavailable right now. Please try again in a moment.', email));
        return;
      }
      if (!gate.allowed) {
        res.status(429).setHeader('Retry-After', String(gate.retryAfterSeconds));
        res.send(signInPage(deps.signupOpen, `Too many failed attempts from your address. Try again in ${Math.ceil(gate.retryAfterSeconds / 60)} minutes.`, email));
        return;
      }
      const account = await accountForSignIn(deps.database, email);
      // Verified against a decoy when there is no password to check, so both cost the same.
      const matches = await deps.passwords.verify(account?.passwordHash ?? (await decoyHash()), password);
      const at = deps.clock.now();
      if (account === undefined || account.passwordHash === null || account.disabled || !matches) {
        // Answered before the audit entry is written, which only a known account gets: an
        // unknown email and a wrong password take the same time until the answer.
        res.status(401).send(signInPage(deps.signupOpen, SIGN_IN_FAILED, email));
        if (account !== undefined) {
          recordAudit(deps.database.db, { accountId: account.id, at, kind: 'sign_in_failed', ip: address }).catch((error: unknown) => {
            deps.logger.error({ err: error, accountId: account.id }, 'could not record a failed sign-in in the audit log');
          });
        }
        return;
      }
      await deps.signInLimiter.succeeded(email, address).catch(() => undefined);
      await recordAudit(deps.database.db, { accountId: account.id, at, kind: 'sign_in', ip: address });
      await signInAs(res, account.id);
    }),
  );

  router.post(
    '/sign-out',
    handle(async (req, res) => {
      const token = readSessionCookie(req, secure);
      if (token !== undefined) await endSession(deps.database, token, deps.clock.now());
      clearSessionCookie(res, secure);
      res.redirect(303, `${DASHBOARD}/sign-in`);
    }),
  );

  router.get(
    '/set-password/:token',
    handle(async (req, res) => {
      const token = req.params.token ?? '';
      const account = await accountOfLink(deps.database, token, deps.clock.now());
      if (account === undefined) {
        res.status(410).send(LINK_GONE);
        return;
      }
      res.setHeader('Cache-Control', 'no-store');
      res.send(setPasswordPage(token, undefined));
    }),
  );

  router.post(
    '/set-password/:token',
    handle(async (req, res) => {
      const token = req.params.token ?? '';
      res.setHeader('Cache-Control', 'no-store');
      if (!(await newPasswordAllowed(req, res, (message) => setPasswordPage(token, message)))) return;
      const at = deps.clock.now();
      // The link is checked before the costly hash: a made-up token costs one indexed read.
      if ((await accountOfLink(deps.database, token, at)) === undefined) {
        res.status(410).send(LINK_GONE);
        return;
      }
      const password = field(req, 'password');
      const problem = passwordProblem(password);
      if (problem !== undefined) {
        res.status(400).send(setPasswordPage(token, problem));
        return;
      }
      // Spent atomically here: of two posts racing with one link, one wins and the other gets 410.
      const accountId = await setPasswordWithLink(deps.database, token, await deps.passwords.hash(password), at);
      if (accountId === undefined) {
        res.status(410).send(LINK_GONE);
        return;
      }
      await recordAudit(deps.database.db, { accountId, at, kind: 'password_changed', ip: clientAddress(req) });
      await signInAs(res, accountId);
    }),
  );

  if (deps.signupOpen) {
    const signUpPage = (message?: string, email = '') =>
      page({
        title: 'Create an account',
        body: html`${notice(message)}
          <form class="stack" method="post" action="${DASHBOARD}/sign-up">
            <label>Email <input type="email" name="email" autocomplete="username" required value="${email}"></label>
            <label>Password <input type="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required></label>
            <button type="submit">Create account</button>
          </form>`,
      });
    router.get('/sign-up', (_req, res) => {
      res.send(signUpPage());
    });
    router.post(
      '/sign-up',
      handle(async (req, res) => {
        if (!(await newPasswordAllowed(req, res, (message) => signUpPage(message, field(req, 'email'))))) return;
        const email = normaliseEmail(field(req, 'email'));
        const password = field(req, 'password');
        if (email === undefined) {
          res.status(400).send(signUpPage('Enter an email address like name@example.com.', field(req, 'email')));
          return;
        }
        const problem = passwordProblem(password);
        if (problem !== undefined) {
          res.status(400).send(signUpPage(problem, email));
          return;
        }
        const at = deps.clock.now();
        try {
          const account = await createAccount(deps.database, { email, planId: 'free', at, passwordHash: await deps.passwords.hash(password) });
          await recordAudit(deps.database.db, { accountId: account.id, at, kind: 'password_changed', ip: clientAddress(req) });
          await signInAs(res, account.id);
        } catch (error) {
          if (!(error instanceof EmailTakenError)) throw error;
          res.status(409).send(signUpPage('That email has an account already. Sign in instead.', email));
        }
      }),
    );
  }
  return router;
}
