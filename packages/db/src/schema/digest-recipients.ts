import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const instant = (name: string) =>
  timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/**
 * Where email digests may go, per address: an address gets digests only once its owner has
 * confirmed it (a mailed link), and never while it is suppressed (it unsubscribed), until its
 * owner confirms it again with a link made after that.
 */
export const digestRecipients = pgTable('digest_recipients', {
  /** The address, lowercase, as alerts.email_to holds it. */
  address: text('address').primaryKey(),
  /** When its owner confirmed it; null until then, and again once it unsubscribes. */
  confirmedAt: instant('confirmed_at'),
  /** When it unsubscribed; only a confirmation with a link made after this lifts it. */
  suppressedAt: instant('suppressed_at'),
  /** SHA-256 of the token of the one confirmation link that works; null when none does. */
  confirmTokenHash: text('confirm_token_hash').unique(),
  /** When that link was made and mailed. */
  confirmSentAt: instant('confirm_sent_at'),
  /** When a confirmation mail was asked for (a digest set on an alert) and not yet sent. */
  confirmRequestedAt: instant('confirm_requested_at'),
});

/** A digest address as read. */
export type DigestRecipientRow = typeof digestRecipients.$inferSelect;
