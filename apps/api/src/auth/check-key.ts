import { findKey, type StoredKey } from '@domain-index/accounts/key-store';
import type { ReadNodes } from '../replicas/read-nodes';

/**
 * The key check of a request, on the read nodes. A key a replica does not know may have been
 * created a moment ago (shown in the dashboard, then used at once): the primary has the last
 * word on it. A key the replica knows is answered there, revoked or not: a revocation reaches
 * it within the staleness bound (docs/operating.md, "Reads on replicas").
 */
export async function checkKey(reads: ReadNodes, key: string, now: Date, first?: () => Promise<StoredKey | undefined>): Promise<StoredKey | undefined> {
  const found = await (first?.() ?? reads.read('key_lookup', (database) => findKey(database, key, now)));
  if (found !== undefined || !reads.replicated) return found;
  return reads.readPrimary('key_lookup', (database) => findKey(database, key, now));
}
