import { digestRecipients, type Database } from '@domain-index/db';

/**
 * Marks an address as confirmed for email digests, as clicking its confirmation link does: for
 * suites about something else than the confirmation (email-digests.test.ts clicks the link).
 */
export async function confirmDigestAddress(database: Database, address: string, at = new Date()): Promise<void> {
  await database.db
    .insert(digestRecipients)
    .values({ address: address.toLowerCase(), confirmedAt: at })
    .onConflictDoUpdate({ target: digestRecipients.address, set: { confirmedAt: at, suppressedAt: null, confirmTokenHash: null, confirmRequestedAt: null } });
}
