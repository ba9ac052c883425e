import { accountLinks, accounts, and, apiKeys, eq, gt, isNotNull, isNull, plans, sessions, sql, type Database } from '@domain-index/db';
import { stopOwnerAlerts } from '@domain-index/alerts/owner-state';
import { UnknownPlanError } from './key-store';
import { endSessionsOf } from './sessions';
import { hashToken, newPublicId, newSecretToken } from './secret-token';

/** How long a one-time set-password link works. */
const LINK_TTL_MS = 24 * 3_600_000;

/** An account as the operator's `accounts list` and the dashboard see it. */
export interface Account {
  id: string;
  email: string;
  planId: string;
  createdAt: Date;
  disabledAt: Date | null;
  hasPassword: boolean;
}

/** A syntactically plausible address: one @, something either side, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The longest address there can be (RFC 5321's path limit less its angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

/** An email as stored: trimmed and lowercased. Undefined when it is not an address. */
export function normaliseEmail(email: string): string | undefined {
  const normal = email.trim().toLowerCase();
  return normal.length <= EMAIL_MAX_LENGTH && EMAIL.test(normal) ? normal : undefined;
}

/** The address is already an account's. */
export class EmailTakenError extends Error {
  override readonly name = 'EmailTakenError';
}

const selectAccount = {
  id: accounts.id,
  email: accounts.email,
  planId: accounts.planId,
  createdAt: accounts.createdAt,
  disabledAt: accounts.disabledAt,
  hasPassword: sql<boolean>`${accounts.passwordHash} is not null`,
};

async function requirePlan(database: Database, planId: string): Promise<void> {
  const known = (await database.db.select({ id: plans.id }).from(plans).orderBy(plans.id)).map((row) => row.id);
  if (!known.includes(planId)) throw new UnknownPlanError(planId, known);
}

/** Creates an account; without a password hash, the password is set through a one-time link. */
export async function createAccount(
  database: Database,
  options: { email: string; planId: string; at: Date; passwordHash?: string | undefined },
): Promise<Account> {
  await requirePlan(database, options.planId);
  const id = newPublicId('acc');
  const rows = await database.db
    .insert(accounts)
    .values({ id, email: options.email, planId: options.planId, createdAt: options.at, passwordHash: options.passwordHash ?? null })
    .onConflictDoNothing({ target: accounts.email })
    .returning(selectAccount);
  const created = rows[0];
  if (created === undefined) throw new EmailTakenError(`an account with the email ${options.email} exists already`);
  return created;
}

/** Every account, oldest first. */
export function listAccounts(database: Database): Promise<Account[]> {
  return database.db.select(selectAccount).from(accounts).orderBy(accounts.createdAt, accounts.id);
}

/** One account by id. */
export async function findAccount(database: Database, id: string): Promise<Account | undefined> {
  const [row] = await database.db.select(selectAccount).from(accounts).where(eq(accounts.id, id));
  return row;
}

/** One account by its email address, however it is cased or spaced; undefined when none. */
export async function findAccountByEmail(database: Database, email: string): Promise<Account | undefined> {
  const normal = normaliseEmail(email);
  if (normal === undefined) return undefined;
  const [row] = await database.db.select(selectAccount).from(accounts).where(eq(accounts.email, normal));
  return row;
}

/** The account of an email with its password hash, for signing in; undefined when none. */
export async function accountForSignIn(
  database: Database,
  email: string,
): Promise<{ id: string; passwordHash: string | null; disabled: boolean } | undefined> {
  const [row] = await database.db
    .select({ id: accounts.id, passwordHash: accounts.passwordHash, disabledAt: accounts.disabledAt })
    .from(accounts)
    .where(eq(accounts.email, email));
  return row === undefined ? undefined : { id: row.id, passwordHash: row.passwordHash, disabled: row.disabledAt !== null };
}

/** The password hash of an enabled account, for checking its current password; undefined when none. */
export async function currentPasswordHash(database: Database, accountId: string): Promise<string | undefined> {
  const [row] = await database.db
    .select({ passwordHash: accounts.passwordHash })
    .from(accounts)
    .where(and(eq(accounts.id, accountId), isNull(accounts.disabledAt)));
  return row?.passwordHash ?? undefined;
}

/**
 * Replaces the password of a signed-in account and ends its other sessions, in one transaction:
 * whoever knew the old password is signed out with it. Returns how many sessions ended, or
 * undefined when the account is gone or disabled.
 */
export async function changePassword(database: Database, accountId: string, passwordHash: string, keepSessionToken: string): Promise<number | undefined> {
  return database.db.transaction(async (tx) => {
    const [account] = await tx
      .update(accounts)
      .set({ passwordHash })
      .where(and(eq(accounts.id, accountId), isNull(accounts.disabledAt)))
      .returning({ id: accounts.id });
    if (account === undefined) return undefined;
    return endSessionsOf(tx, accountId, keepSessionToken);
  });
}

/** Changes an account's plan; its keys have the new limit from their next request. False when no such account. */
export async function setAccountPlan(database: Database, id: string, planId: string): Promise<boolean> {
  await requirePlan(database, planId);
  const rows = await database.db.update(accounts).set({ planId }).where(eq(accounts.id, id)).returning({ id: accounts.id });
  return rows.length > 0;
}

/**
 * Disables an account, in one transaction: its sessions end now, its keys are refused from the
 * next request, and its alerts are paused with their pending messages cancelled ("owner
 * disabled"), so nothing more is sent for it.
 */
export async function disableAccount(database: Database, id: string, at: Date): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const rows = await tx
      .update(accounts)
      .set({ disabledAt: at })
      .where(and(eq(accounts.id, id), isNull(accounts.disabledAt)))
      .returning({ id: accounts.id });
    await tx.delete(sessions).where(eq(sessions.accountId, id));
    await stopOwnerAlerts(tx, { accountId: id }, 'owner disabled', at);
    return rows.length > 0;
  });
}

/**
 * Enables a disabled account: its keys work again from the next request. Its alerts stay
 * paused: the owner resumes them. False when it was not disabled.
 */
export async function enableAccount(database: Database, id: string): Promise<boolean> {
  const rows = await database.db
    .update(accounts)
    .set({ disabledAt: null })
    .where(and(eq(accounts.id, id), isNotNull(accounts.disabledAt)))
    .returning({ id: accounts.id });
  return rows.length > 0;
}

/** A new one-time link token for an account, valid LINK_TTL_MS; earlier unused links stop working. */
export async function issueLink(database: Database, accountId: string, at: Date): Promise<string> {
  const token = newSecretToken();
  await database.db.transaction(async (tx) => {
    await tx.update(accountLinks).set({ usedAt: at }).where(and(eq(accountLinks.accountId, accountId), isNull(accountLinks.usedAt)));
    await tx.insert(accountLinks).values({ tokenHash: hashToken(token), accountId, createdAt: at, expiresAt: new Date(at.getTime() + LINK_TTL_MS) });
  });
  return token;
}

/** The account a link token opens, while it is unused and unexpired and the account enabled. */
export async function accountOfLink(database: Database, token: string, at: Date): Promise<Account | undefined> {
  const [row] = await database.db
    .select(selectAccount)
    .from(accountLinks)
    .innerJoin(accounts, eq(accounts.id, accountLinks.accountId))
    .where(and(eq(accountLinks.tokenHash, hashToken(token)), isNull(accountLinks.usedAt), gt(accountLinks.expiresAt, at), isNull(accounts.disabledAt)));
  return row;
}

/**
 * Uses a link to set the password: the link is spent in the same statement that checks it, so
 * it works once even when two requests race. Every session of the account ends. Returns the
 * account id, or undefined when the link is not (or no longer) valid.
 */
export async function setPasswordWithLink(database: Database, token: string, passwordHash: string, at: Date): Promise<string | undefined> {
  return database.db.transaction(async (tx) => {
    const [link] = await tx
      .update(accountLinks)
      .set({ usedAt: at })
      .where(and(eq(accountLinks.tokenHash, hashToken(token)), isNull(accountLinks.usedAt), gt(accountLinks.expiresAt, at)))
      .returning({ accountId: accountLinks.accountId });
    if (link === undefined) return undefined;
    const [account] = await tx
      .update(accounts)
      .set({ passwordHash })
      .where(and(eq(accounts.id, link.accountId), isNull(accounts.disabledAt)))
      .returning({ id: accounts.id });
    if (account === undefined) return undefined;
    await tx.delete(sessions).where(eq(sessions.accountId, account.id));
    return account.id;
  });
}

/** Gives a key made by `keys create` (no account) to an account: the demo key of the embedded start. */
export async function assignKey(database: Database, keyId: string, accountId: string): Promise<void> {
  await database.db.update(apiKeys).set({ accountId }).where(eq(apiKeys.id, keyId));
}
