import { createHash } from 'node:crypto';
import { and, desc, eq, gt, lt, ne, or, sessions, type Database, type Drizzle } from '@domain-index/db';
import { hashToken, newSecretToken } from './secret-token';

/** A session ends after this long without a request... */
export const SESSION_IDLE_MS = 30 * 60_000;
/** ...and after this long in any case. */
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** `last_seen_at` is written at most this often, not on every page. */
const TOUCH_EVERY_MS = 60_000;
/** The most of a User-Agent kept: enough to tell the browser and system, not a place to store kilobytes. */
const USER_AGENT_MAX = 512;

/** Where a session was started from, shown on the sessions page. */
export interface SessionOrigin {
  userAgent: string | undefined;
  ip: string;
}

/** A live session as its account's sessions page lists it: never its token. */
export interface SessionListing {
  /** A public handle of the session, to end it from the sessions page. */
  handle: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  /** The session of the request that lists them. */
  current: boolean;
}

/**
 * The handle of a session: derived from the stored hash, so nothing new is stored, and from it
 * nobody can get back to the hash, let alone the token.
 */
function sessionHandle(tokenHash: string): string {
  return createHash('sha256').update(`session handle ${tokenHash}`).digest('base64url').slice(0, 16);
}

/** Starts a session: a new token every sign-in (never one chosen by the client). */
export async function startSession(database: Database, accountId: string, at: Date, origin?: SessionOrigin): Promise<string> {
  const token = newSecretToken();
  await database.db.insert(sessions).values({
    tokenHash: hashToken(token),
    accountId,
    createdAt: at,
    lastSeenAt: at,
    expiresAt: new Date(at.getTime() + SESSION_ABSOLUTE_MS),
    userAgent: origin?.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    ip: origin?.ip ?? null,
  });
  return token;
}

/** Sessions within both expiries at `at`. */
const live = (at: Date) => and(gt(sessions.expiresAt, at), gt(sessions.lastSeenAt, new Date(at.getTime() - SESSION_IDLE_MS)));

/** The account of a live session (within both expiries), refreshing its idle expiry; undefined otherwise. */
export async function sessionAccount(database: Database, token: string, at: Date): Promise<string | undefined> {
  const tokenHash = hashToken(token);
  const [row] = await database.db
    .select({ accountId: sessions.accountId, lastSeenAt: sessions.lastSeenAt })
    .from(sessions)
    .where(and(eq(sessions.tokenHash, tokenHash), live(at)));
  if (row === undefined) return undefined;
  if (at.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await database.db.update(sessions).set({ lastSeenAt: at }).where(eq(sessions.tokenHash, tokenHash));
  }
  return row.accountId;
}

/** Ends a session on the server (signing out), and sweeps sessions that have expired. */
export async function endSession(database: Database, token: string, at: Date): Promise<void> {
  await database.db
    .delete(sessions)
    .where(or(eq(sessions.tokenHash, hashToken(token)), lt(sessions.expiresAt, at), lt(sessions.lastSeenAt, new Date(at.getTime() - SESSION_IDLE_MS))));
}

/** The account's live sessions, the most recently seen first; `current` marks the one of `token`. */
export async function listSessions(database: Database, accountId: string, token: string, at: Date): Promise<SessionListing[]> {
  const rows = await database.db
    .select({ tokenHash: sessions.tokenHash, userAgent: sessions.userAgent, ip: sessions.ip, createdAt: sessions.createdAt, lastSeenAt: sessions.lastSeenAt })
    .from(sessions)
    .where(and(eq(sessions.accountId, accountId), live(at)))
    .orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt));
  const own = hashToken(token);
  return rows.map(({ tokenHash, ...row }) => ({ ...row, handle: sessionHandle(tokenHash), current: tokenHash === own }));
}

/** Ends one of the account's sessions, named by its handle; false when it has no such session. */
export async function endSessionByHandle(database: Database, accountId: string, handle: string): Promise<boolean> {
  const rows = await database.db.select({ tokenHash: sessions.tokenHash }).from(sessions).where(eq(sessions.accountId, accountId));
  const match = rows.find((row) => sessionHandle(row.tokenHash) === handle);
  if (match === undefined) return false;
  const ended = await database.db
    .delete(sessions)
    .where(and(eq(sessions.accountId, accountId), eq(sessions.tokenHash, match.tokenHash)))
    .returning({ tokenHash: sessions.tokenHash });
  return ended.length > 0;
}

/**
 * Ends every session of the account, or every one but `keepToken`'s, through `database.db` or in
 * a transaction; returns how many ended.
 */
export async function endSessionsOf(db: Pick<Drizzle, 'delete'>, accountId: string, keepToken?: string): Promise<number> {
  const ended = await db
    .delete(sessions)
    .where(keepToken === undefined ? eq(sessions.accountId, accountId) : and(eq(sessions.accountId, accountId), ne(sessions.tokenHash, hashToken(keepToken))))
    .returning({ tokenHash: sessions.tokenHash });
  return ended.length;
}
