import { describe, expect, it } from 'vitest';
import { lastRecordEnd, parseLsn, WalHistory } from './wal-history';

describe('WAL positions and replica staleness', () => {
  it('reads PostgreSQL WAL positions as ordered numbers', () => {
    expect(parseLsn('0/3000000')).toBe(0x3000000n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(() => parseLsn('nonsense')).toThrow(/not a WAL position/);
  });

  it('takes an insert position just past a page header back to the boundary a replica reports', () => {
    const page = 8192n;
    const segment = 16n * 1024n * 1024n;
    // mid-page: unchanged
    expect(lastRecordEnd(0x3000a10n, page, segment)).toBe(0x3000a10n);
    // past the short header of a page inside a segment
    expect(lastRecordEnd(0x3002018n, page, segment)).toBe(0x3002000n);
    // past the long header that opens a segment
    expect(lastRecordEnd(0x4000028n, page, segment)).toBe(0x4000000n);
  });

  it('sees no staleness in a replica of an idle primary, however long it stays idle', () => {
    const history = new WalHistory(10_000);
    for (let at = 0; at <= 60_000; at += 500) history.record(at, 0x3000000n);
    expect(history.stalenessOf(0x3000000n, 60_010)).toBe(10);
  });

  it('bounds the staleness of a replica behind a writing primary by the last time the primary was at its position', () => {
    const history = new WalHistory(10_000);
    history.record(1_000, 100n);
    history.record(1_500, 200n);
    history.record(2_000, 300n);
    history.record(2_500, 400n);
    // the replica has replayed 250: it has everything written by 1,500, maybe not what came after
    expect(history.stalenessOf(250n, 2_600)).toBe(1_100);
    expect(history.stalenessOf(400n, 2_600)).toBe(100);
    expect(history.stalenessOf(50n, 2_600)).toBeUndefined();
  });

  it('keeps samples for its window, and the newest one before it', () => {
    const history = new WalHistory(1_000);
    for (let at = 0; at <= 5_000; at += 100) history.record(at, BigInt(at));
    // 3,900 is before the window but is the newest sample at or below 3,950
    expect(history.stalenessOf(3_950n, 5_000)).toBe(1_100);
    expect(history.stalenessOf(1_000n, 5_000)).toBeUndefined();
  });
});
