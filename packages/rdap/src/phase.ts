/**
 * Where a name stands in a registry's life cycle, read from its RDAP status values (RFC 8056):
 * `registered` (it exists, whatever its locks), `grace` (expired but still the holder's to renew:
 * auto renew period), `redemption` (deleted, restorable: redemption period, pending restore),
 * `pending_delete` (deleted, no longer restorable, drops soon), `available` (the registry answered
 * 404), `unknown` (no RDAP server for the TLD, or nothing learned).
 */
export type RegistrationPhase =
  'registered' | 'grace' | 'redemption' | 'pending_delete' | 'available' | 'unknown';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The gTLD timeline the registries publish (ICANN's Expired Registration Recovery Policy and the
 * Redemption Grace Period): up to 45 days of auto-renew grace after expiration, 30 days of
 * redemption, 5 days of pending delete, then the name drops.
 */
export const GTLD_TIMELINE_DAYS = { autoRenewGrace: 45, redemption: 30, pendingDelete: 5 } as const;

/**
 * An RDAP status value in one spelling: RFC 8056's "redemption period", EPP's "redemptionPeriod"
 * and a registry's "REDEMPTION_PERIOD" all read "redemption period".
 */
export function normaliseStatus(status: string): string {
  return status
    .trim()
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/**
 * The phase a set of RDAP status values implies (RFC 8056 §2 maps EPP's statuses and RGP's
 * states to these values). The most advanced state of deletion wins: `redemption period` or
 * `pending restore` -> redemption (registries show `pending delete` beside them during
 * redemption); `pending delete` alone -> pending_delete; `auto renew period` -> grace (the name
 * expired and was renewed by the registry, the registrar may still delete it). Anything else,
 * `renew period`, `add period`, `transfer period`, `inactive`, locks, and no status at all, is a
 * name that exists: registered.
 */
export function phaseOf(statuses: string[]): RegistrationPhase {
  const present = new Set(statuses.map(normaliseStatus));
  if (present.has('redemption period') || present.has('pending restore')) return 'redemption';
  if (present.has('pending delete')) return 'pending_delete';
  if (present.has('auto renew period')) return 'grace';
  return 'registered';
}

/** What {@link expectedDropAt} reads: the phase and the dates the registry's events gave. */
export interface DropEvidence {
  phase: RegistrationPhase;
  expiresAt: Date | null;
  /** The `last changed` event: for a name in redemption or pending delete, most likely the change into it. */
  updatedAt: Date | null;
  /** A `deletion` event, where a registry gives one: the start of redemption. */
  deletedAt?: Date | null;
}

const plusDays = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);
const notBefore = (date: Date | null, floor: Date | null): date is Date =>
  date !== null && (floor === null || date.getTime() >= floor.getTime());

/**
 * When the name is expected to drop (become available), by the gTLD timeline
 * ({@link GTLD_TIMELINE_DAYS}), from the best evidence; null where the phase implies no drop or
 * nothing dates it. A `last changed` date counts as the start of the phase only when it is not
 * before the expiration (an older change cannot have started it).
 *
 * | phase          | evidence, first that applies                  | expected drop            |
 * | -------------- | --------------------------------------------- | ------------------------ |
 * | grace          | expiresAt                                     | expiresAt + 45 + 30 + 5 d |
 * | redemption     | deletedAt                                     | deletedAt + 30 + 5 d     |
 * | redemption     | updatedAt, not before expiresAt               | updatedAt + 30 + 5 d     |
 * | redemption     | expiresAt                                     | expiresAt + 45 + 30 + 5 d |
 * | pending_delete | updatedAt, not before expiresAt nor deletedAt | updatedAt + 5 d          |
 * | pending_delete | deletedAt                                     | deletedAt + 30 + 5 d     |
 * | pending_delete | expiresAt                                     | expiresAt + 45 + 30 + 5 d |
 * | any other      |                                               | null                     |
 */
export function expectedDropAt(evidence: DropEvidence): Date | null {
  const { phase, expiresAt, updatedAt } = evidence;
  const deletedAt = evidence.deletedAt ?? null;
  const { autoRenewGrace, redemption, pendingDelete } = GTLD_TIMELINE_DAYS;
  const fromExpiry =
    expiresAt === null ? null : plusDays(expiresAt, autoRenewGrace + redemption + pendingDelete);
  switch (phase) {
    case 'grace':
      return fromExpiry;
    case 'redemption':
      if (deletedAt !== null) return plusDays(deletedAt, redemption + pendingDelete);
      if (notBefore(updatedAt, expiresAt)) return plusDays(updatedAt, redemption + pendingDelete);
      return fromExpiry;
    case 'pending_delete':
      if (notBefore(updatedAt, expiresAt) && notBefore(updatedAt, deletedAt))
        return plusDays(updatedAt, pendingDelete);
      if (deletedAt !== null) return plusDays(deletedAt, redemption + pendingDelete);
      return fromExpiry;
    default:
      return null;
  }
}
