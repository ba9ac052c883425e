import { createHash, randomBytes } from 'node:crypto';
import type { DigestStatus } from '@domain-index/contract';
import { and, digestRecipients, eq, inArray, isNotNull, isNull, lt, or, sql, type Database, type DigestRecipientRow, type Drizzle } from '@domain-index/db';
import type { Clock } from '@domain-index/runtime/clock';
import { html } from '@domain-index/html/html';
import type { Logger } from '@domain-index/runtime/logger';
import type { Mailer } from '@domain-index/mail/mailer';

/** How long a confirmation link works after it was mailed. */
export const CONFIRM_LINK_DAYS = 7;
/** The least time between two confirmation mails to one address, however often one is asked for. */
export const CONFIRM_MAIL_GAP_MS = 10 * 60_000;
/** Where a confirmation link points: public, no key and no sign-in needed. */
export const CONFIRM_EMAIL_PATH = '/alerts/confirm-email';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const normal = (address: string) => address.trim().toLowerCase();

/**
 * An address's state for the digests: confirmed; unsubscribed while it is suppressed and no new
 * link was asked for or sent since; else waiting for its owner to click a confirmation link (an
 * address never seen is too: setting a digest asks for its confirmation).
 */
export function digestStatusOf(row: DigestRecipientRow | undefined): DigestStatus {
  if (row?.confirmedAt != null) return 'confirmed';
  if (row?.suppressedAt != null && row.confirmRequestedAt === null && row.confirmSentAt === null) return 'unsubscribed';
  return 'pending_confirmation';
}

/** The rows of these addresses, by address. */
export async function digestRecipientsOf(database: Database, addresses: readonly string[]): Promise<Map<string, DigestRecipientRow>> {
  const wanted = [...new Set(addresses.map(normal))];
  if (wanted.length === 0) return new Map();
  const rows = await database.db.select().from(digestRecipients).where(inArray(digestRecipients.address, wanted));
  return new Map(rows.map((row) => [row.address, row]));
}

/** The row of one address as `address` is written on an alert, or undefined. */
export function recipientFor(rows: ReadonlyMap<string, DigestRecipientRow>, address: string): DigestRecipientRow | undefined {
  return rows.get(normal(address));
}

/**
 * Asks for a confirmation mail to `address`, through `db` or in the transaction that set a
 * digest, unless it is confirmed: the digest worker mails a new link (sendConfirmations). This
 * is how a suppressed address can be confirmed again; it stays suppressed until the link is
 * clicked.
 */
export async function requestConfirmation(db: Pick<Drizzle, 'insert'>, address: string, at: Date): Promise<void> {
  await db
    .insert(digestRecipients)
    .values({ address: normal(address), confirmRequestedAt: at })
    .onConflictDoUpdate({ target: digestRecipients.address, set: { confirmRequestedAt: at }, setWhere: isNull(digestRecipients.confirmedAt) });
}

/**
 * Suppresses `address` (it used an unsubscribe link): no digest goes to it from any alert, the
 * confirmation and any link still out (or asked for) are void, so only a link made after this
 * one can lift it.
 */
export async function suppress(db: Pick<Drizzle, 'insert'>, address: string, at: Date): Promise<void> {
  const cleared = { suppressedAt: at, confirmedAt: null, confirmTokenHash: null, confirmSentAt: null, confirmRequestedAt: null };
  await db
    .insert(digestRecipients)
    .values({ address: normal(address), ...cleared })
    .onConflictDoUpdate({ target: digestRecipients.address, set: cleared });
}

/** What a confirmation link's token is worth at a time: the address it confirms, or why not. */
export type ConfirmationCheck = { ok: true; address: string } | { ok: false; reason: 'expired' | 'invalid' };

/** Checks a confirmation link's token without using it: the address, or why it does not work. */
export async function checkConfirmation(database: Database, token: string, now: Date): Promise<ConfirmationCheck> {
  if (!/^[\w-]{43}$/.test(token)) return { ok: false, reason: 'invalid' };
  const [row] = await database.db
    .select({ address: digestRecipients.address, sentAt: digestRecipients.confirmSentAt })
    .from(digestRecipients)
    .where(eq(digestRecipients.confirmTokenHash, hashOf(token)));
  if (row === undefined || row.sentAt === null) return { ok: false, reason: 'invalid' };
  if (now.getTime() - row.sentAt.getTime() > CONFIRM_LINK_DAYS * 86_400_000) return { ok: false, reason: 'expired' };
  return { ok: true, address: row.address };
}

/**
 * Confirms the address of a link's token, once: digests go to it from then on, and a
 * suppression is lifted. The token is spent in the same statement, so two clicks confirm once.
 */
export async function confirmWithToken(database: Database, token: string, now: Date): Promise<ConfirmationCheck> {
  const check = await checkConfirmation(database, token, now);
  if (!check.ok) return check;
  const [row] = await database.db
    .update(digestRecipients)
    .set({ confirmedAt: now, suppressedAt: null, confirmTokenHash: null, confirmRequestedAt: null })
    .where(eq(digestRecipients.confirmTokenHash, hashOf(token)))
    .returning({ address: digestRecipients.address });
  return row === undefined ? { ok: false, reason: 'invalid' } : { ok: true, address: row.address };
}

/** What mailing confirmation links needs. */
export interface ConfirmationSettings {
  mailer: Mailer;
  clock: Clock;
  logger: Logger;
  /** PUBLIC_URL: the links are built from it. */
  publicUrl: string;
}

/** The mail of a confirmation link. */
export function confirmationMail(address: string, link: string) {
  return {
    to: address,
    subject: 'Confirm this address for Domain Index alert digests',
    text: [
      'Someone, probably you, asked Domain Index to send email digests of a saved search (an alert) to this address.',
      '',
      `Confirm it: ${link}`,
      '',
      `The link works for ${CONFIRM_LINK_DAYS} days. Until it is clicked, no digest is sent here. If it was not you, ignore this email: nothing will be.`,
    ].join('\n'),
    html: html`<p>Someone, probably you, asked Domain Index to send email digests of a saved search (an alert) to this address.</p>
      <p><a href="${link}">Confirm this address</a></p>
      <p>The link works for ${CONFIRM_LINK_DAYS} days. Until it is clicked, no digest is sent here. If it was not you, ignore this email: nothing will be.</p>`.text,
  };
}

/**
 * Mails a confirmation link to every address that asked for one (requestConfirmation), at most
 * one every CONFIRM_MAIL_GAP_MS per address. Each address is claimed by moving its request into
 * a new link in one statement (two workers never mail it twice); a mail that fails gives the
 * request back, to be tried at the next turn. A new link replaces the one before. Returns the
 * mails sent.
 */
export async function sendConfirmations(database: Database, settings: ConfirmationSettings): Promise<number> {
  const now = settings.clock.now();
  const due = await database.db
    .select({ address: digestRecipients.address, requestedAt: digestRecipients.confirmRequestedAt })
    .from(digestRecipients)
    .where(
      and(
        isNotNull(digestRecipients.confirmRequestedAt),
        isNull(digestRecipients.confirmedAt),
        or(isNull(digestRecipients.confirmSentAt), lt(digestRecipients.confirmSentAt, new Date(now.getTime() - CONFIRM_MAIL_GAP_MS))),
      ),
    );
  let sent = 0;
  for (const { address, requestedAt } of due) {
    const token = randomBytes(32).toString('base64url');
    const claimed = await database.db
      .update(digestRecipients)
      .set({ confirmTokenHash: hashOf(token), confirmSentAt: now, confirmRequestedAt: null })
      .where(and(eq(digestRecipients.address, address), eq(digestRecipients.confirmRequestedAt, requestedAt!), isNull(digestRecipients.confirmedAt)))
      .returning({ address: digestRecipients.address });
    if (claimed.length === 0) continue;
    const outcome = await settings.mailer.send(confirmationMail(address, `${settings.publicUrl}${CONFIRM_EMAIL_PATH}/${token}`));
    if (!outcome.ok) {
      // the link was never seen: it is void, and the request comes back for the next turn
      await database.db
        .update(digestRecipients)
        .set({ confirmTokenHash: null, confirmSentAt: null, confirmRequestedAt: sql`coalesce(${digestRecipients.confirmRequestedAt}, ${requestedAt!.toISOString()}::timestamptz)` })
        .where(and(eq(digestRecipients.address, address), eq(digestRecipients.confirmTokenHash, hashOf(token))));
      settings.logger.warn({ error: outcome.error, reason: outcome.message }, 'a digest confirmation email could not be sent; it is tried again at the next turn');
      continue;
    }
    sent += 1;
  }
  return sent;
}
