/**
 * `real` (float4) columns hold binary values, and a customer sees each as the shortest decimal
 * that reads back as it (45.6 for the float4 nearest 45.6, which is 45.59999847...). A bound is
 * meant against what the customer sees, so `max_dr=45.5999999` must exclude a shown 45.6, even
 * though 45.5999999 and 45.6 round to the same float4. These functions turn a bound into the
 * float4 threshold that splits the column's values exactly where the shown values cross the bound;
 * the column is then compared with a float4, natively, row by row.
 */

const FLOAT = new Float32Array(1);
const BITS = new Int32Array(FLOAT.buffer);

/** The float4 next to `value` (itself a float4) upwards or downwards. */
function step(value: number, direction: 1 | -1): number {
  FLOAT[0] = value;
  if (value === 0) {
    BITS[0] = 1;
    return direction * FLOAT[0];
  }
  // For finite float4s the bit pattern, read as an integer, grows with the magnitude.
  BITS[0] = BITS[0]! + (value > 0 ? direction : -direction);
  return FLOAT[0];
}

/** What a customer sees of a float4 value: the shortest decimal that reads back as it. */
export function shownFloat4(value: number): number {
  for (let digits = 1; digits <= 9; digits += 1) {
    const shown = Number(value.toPrecision(digits));
    if (Math.fround(shown) === value) return shown;
  }
  return value;
}

/**
 * The float4 `t` such that, for every float4 value `v`, `v >= t` exactly when the shown `v` is
 * >= `bound` (side `lower`), or `v <= t` exactly when the shown `v` is <= `bound` (side `upper`).
 * The shown value grows with the value, so the split lies next to the float4 nearest the bound.
 */
export function float4Threshold(bound: number, side: 'lower' | 'upper'): number {
  const nearest = Math.fround(bound);
  const below = step(nearest, -1);
  const above = step(nearest, 1);
  if (side === 'lower') return [below, nearest, above].find((value) => shownFloat4(value) >= bound) ?? step(above, 1);
  return [above, nearest, below].find((value) => shownFloat4(value) <= bound) ?? step(below, -1);
}
