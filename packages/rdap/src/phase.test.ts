import { describe, expect, it } from 'vitest';
import {
  expectedDropAt,
  normaliseStatus,
  phaseOf,
  type DropEvidence,
  type RegistrationPhase,
} from './phase';

describe('phaseOf', () => {
  const table: [string[], RegistrationPhase][] = [
    [['active'], 'registered'],
    [[], 'registered'],
    [['client transfer prohibited', 'server delete prohibited'], 'registered'],
    [['inactive'], 'registered'],
    [['active', 'add period'], 'registered'],
    [['active', 'renew period'], 'registered'],
    [['pending transfer', 'transfer period'], 'registered'],
    [['active', 'auto renew period'], 'grace'],
    [['client transfer prohibited', 'auto renew period'], 'grace'],
    [['redemption period', 'pending delete'], 'redemption'],
    [['redemption period'], 'redemption'],
    [['pending restore', 'pending delete'], 'redemption'],
    [['pending delete'], 'pending_delete'],
    [['pending delete', 'server hold'], 'pending_delete'],
    [['pending delete', 'auto renew period'], 'pending_delete'],
    [['redemptionPeriod', 'pendingDelete'], 'redemption'],
    [['PENDING_DELETE'], 'pending_delete'],
    [['Auto-Renew Period'], 'grace'],
  ];
  it.each(table)('reads %j as %s', (statuses, phase) => {
    expect(phaseOf(statuses)).toBe(phase);
  });

  it('spells EPP, RFC 8056 and upper-case snake values alike', () => {
    expect(
      ['clientTransferProhibited', 'client transfer prohibited', 'CLIENT_TRANSFER_PROHIBITED'].map(
        normaliseStatus,
      ),
    ).toEqual([
      'client transfer prohibited',
      'client transfer prohibited',
      'client transfer prohibited',
    ]);
  });
});

describe('expectedDropAt', () => {
  const d = (iso: string) => new Date(`${iso}T00:00:00Z`);
  const expiresAt = d('2026-01-01');
  const table: [string, DropEvidence, Date | null][] = [
    [
      'a registered name has none',
      { phase: 'registered', expiresAt, updatedAt: d('2025-06-01') },
      null,
    ],
    ['an available name has none', { phase: 'available', expiresAt: null, updatedAt: null }, null],
    ['an unknown name has none', { phase: 'unknown', expiresAt, updatedAt: null }, null],
    [
      'grace: expiration + 45 + 30 + 5 days',
      { phase: 'grace', expiresAt, updatedAt: d('2026-01-02') },
      d('2026-03-22'),
    ],
    [
      'grace without an expiration: none',
      { phase: 'grace', expiresAt: null, updatedAt: d('2026-01-02') },
      null,
    ],
    [
      'redemption: a deletion event + 30 + 5 days',
      { phase: 'redemption', expiresAt, updatedAt: d('2026-02-01'), deletedAt: d('2026-01-20') },
      d('2026-02-24'),
    ],
    [
      'redemption: last changed after expiry + 30 + 5 days',
      { phase: 'redemption', expiresAt, updatedAt: d('2026-02-01') },
      d('2026-03-08'),
    ],
    [
      'redemption: last changed before expiry does not date it',
      { phase: 'redemption', expiresAt, updatedAt: d('2025-12-01') },
      d('2026-03-22'),
    ],
    [
      'redemption: expiration only',
      { phase: 'redemption', expiresAt, updatedAt: null },
      d('2026-03-22'),
    ],
    [
      'redemption: last changed only',
      { phase: 'redemption', expiresAt: null, updatedAt: d('2026-02-01') },
      d('2026-03-08'),
    ],
    ['redemption: nothing dated', { phase: 'redemption', expiresAt: null, updatedAt: null }, null],
    [
      'pending delete: last changed + 5 days',
      { phase: 'pending_delete', expiresAt, updatedAt: d('2026-03-03') },
      d('2026-03-08'),
    ],
    [
      'pending delete: last changed before the deletion does not date it',
      {
        phase: 'pending_delete',
        expiresAt,
        updatedAt: d('2026-01-10'),
        deletedAt: d('2026-01-20'),
      },
      d('2026-02-24'),
    ],
    [
      'pending delete: last changed before expiry, expiration only',
      { phase: 'pending_delete', expiresAt, updatedAt: d('2025-10-01') },
      d('2026-03-22'),
    ],
    [
      'pending delete: nothing dated',
      { phase: 'pending_delete', expiresAt: null, updatedAt: null },
      null,
    ],
  ];
  it.each(table)('%s', (_name, evidence, drop) => {
    expect(expectedDropAt(evidence)).toEqual(drop);
  });
});
