import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { float4Threshold, shownFloat4 } from './float4-threshold';

/** A float4 value as a column holds it, from a decimal as a feed writes it. */
const stored = (decimal: number) => Math.fround(decimal);

describe('float4 thresholds of bounds on real columns', () => {
  it('shows a stored value as the decimal it was written as', () => {
    expect(shownFloat4(stored(45.6))).toBe(45.6);
    expect(shownFloat4(stored(0.1))).toBe(0.1);
    expect(shownFloat4(stored(33.3))).toBe(33.3);
    expect(shownFloat4(stored(100))).toBe(100);
    expect(shownFloat4(0)).toBe(0);
  });

  it('keeps a shown 45.6 in min_dr=45.6 and max_dr=45.6, and out of max_dr=45.5999999 and min_dr=45.6000001', () => {
    const value = stored(45.6);
    expect(value >= float4Threshold(45.6, 'lower')).toBe(true);
    expect(value <= float4Threshold(45.6, 'upper')).toBe(true);
    // 45.5999999 and 45.6000001 round to the very float4 that holds 45.6, yet a customer who
    // sees 45.6 asked for values at most 45.5999999 or at least 45.6000001.
    expect(Math.fround(45.5999999)).toBe(value);
    expect(value <= float4Threshold(45.5999999, 'upper')).toBe(false);
    expect(value >= float4Threshold(45.6000001, 'lower')).toBe(false);
  });

  it('splits every float4 value exactly where its shown value crosses the bound', () => {
    const decimals = fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 3 })).map(([units, places]) => units / 10 ** places);
    const near = fc.tuple(decimals, fc.constantFrom(0, 1e-9, -1e-9, 1e-7, -1e-7, 1e-5, -1e-5, 0.004999, -0.004999)).map(([at, delta]) => Math.max(0, at + delta));
    fc.assert(
      fc.property(decimals, fc.oneof(decimals, near), (written, bound) => {
        const value = stored(written);
        const shown = shownFloat4(value);
        expect(value >= float4Threshold(bound, 'lower')).toBe(shown >= bound);
        expect(value <= float4Threshold(bound, 'upper')).toBe(shown <= bound);
      }),
      { numRuns: 20_000 },
    );
  });
});
