import { and, eq, gt, lt, or, sessions, type Database } from '@domain-index/db';
import { hashToken, newSecretToken } from './secret-token';

/** A session ends after this long without a request... */
export const SESSION_IDLE_MS = 30 * 60_000;
/** ...and after this long in any case. */
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** `last_seen_at` is written at most this often, not on every page. */
const TOUCH_EVERY_MS = 60_000;

/** Starts a session: a new token every sign-in (never one chosen by the client). */
export async function startSession(database: Database, accountId: string, at: Date): Promise<string> {
  const token = newSecretToken();
  await database.db.insert(sessions).values({
    tokenHash: hashToken(token),
    accountId,
    createdAt: at,
    lastSeenAt: at,
    expiresAt: new Date(at.getTime() + SESSION_ABSOLUTE_MS),
  });
  return token;
}

/** The account of a live session (within both expiries), refreshing its idle expiry; undefined otherwise. */
export async function sessionAccount(database: Database, token: string, at: Date): Promise<string | undefined> {
  const tokenHash = hashToken(token);
  const [row] = await database.db
    .select({ accountId: sessions.accountId, lastSeenAt: sessions.lastSeenAt })
    .from(sessions)
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, at), gt(sessions.lastSeenAt, new Date(at.getTime() - SESSION_IDLE_MS))));
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
