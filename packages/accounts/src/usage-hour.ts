/** Usage is counted per UTC hour: the hour a time falls in, as the start of that hour in ms. */
export const HOUR_MS = 3_600_000;

export function usageHourOf(at: Date): number {
  return Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
}
