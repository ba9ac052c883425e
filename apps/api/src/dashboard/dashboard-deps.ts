import type { Database } from '@domain-index/db';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Account } from '@domain-index/accounts/account-store';
import type { AlertActions } from '@domain-index/alerts/alert-actions';
import type { WatchlistActions } from '@domain-index/names/watchlist-actions';
import type { PasswordHasher } from '@domain-index/accounts/passwords';
import type { Clock } from '@domain-index/runtime/clock';
import type { Logger } from '@domain-index/runtime/logger';
import type { Mailer } from '@domain-index/mail/mailer';
import type { ListingExports } from '../exports/listing-exports';
import type { RateLimiter } from '../ratelimit/rate-limiter';
import type { SignInLimiter } from './sign-in-limiter';
import { databaseOf } from '../http/request-deadline';

/** What the dashboard needs from the composition root. */
export interface DashboardDeps {
  database: Database;
  logger: Logger;
  clock: Clock;
  /** Where people reach the service (config PUBLIC_URL): links and the cookie's Secure flag. */
  publicUrl: string;
  /** SIGNUP=open: anyone may create an account. */
  signupOpen: boolean;
  signInLimiter: SignInLimiter;
  /** Argon2id in the service; tests count its calls. */
  passwords: PasswordHasher;
  /** Sends "forgot password" links when SMTP_URL is set; without it, people are told to ask the operator. */
  mailer?: Mailer | undefined;
  /** The actions on alerts, the same service the API's alert endpoints use. */
  alerts: AlertActions;
  /** The actions on watchlists, the same service the API's watchlist endpoints use. */
  watchlists: WatchlistActions;
  /** The API's export machinery: an alert's "Download CSV" streams as an export does. */
  listingExports: ListingExports;
  /** Meters the downloads, in each account's own bucket. */
  rateLimiter: RateLimiter;
}

/** What createApp is given for the dashboard; the rest of DashboardDeps comes from the app's own. */
export type DashboardOptions = Pick<DashboardDeps, 'publicUrl' | 'signupOpen' | 'signInLimiter'> & Partial<Pick<DashboardDeps, 'passwords' | 'mailer'>>;

/** The signed-in account of a request, set by loadAccount. */
/** The alert actions on this request's view of the database, bounded by its deadline. */
export function alertsOf(res: Response, deps: Pick<DashboardDeps, 'alerts' | 'database'>): AlertActions {
  return deps.alerts.on(databaseOf(res, deps));
}

/** The watchlist actions on this request's view of the database, bounded by its deadline. */
export function watchlistsOf(res: Response, deps: Pick<DashboardDeps, 'watchlists' | 'database'>): WatchlistActions {
  return deps.watchlists.on(databaseOf(res, deps));
}

export function signedIn(res: Response): Account | undefined {
  return res.locals.account as Account | undefined;
}

/** The session token of a signed-in request (from its cookie), set with the account by loadAccount. */
export function sessionToken(res: Response): string | undefined {
  return res.locals.sessionToken as string | undefined;
}

/**
 * Express 4 does not catch a rejected handler: this passes the failure on to the error page.
 * As a middleware (`thenNext`), it calls the next handler once `run` has finished.
 */
export function handle(run: (req: Request, res: Response) => Promise<void>, thenNext = false): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    run(req, res).then(() => {
      if (thenNext) next();
    }, next);
  };
}
