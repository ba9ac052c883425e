import { fileURLToPath } from 'node:url';

/**
 * Where a measurement made at some size writes its figures: bench/results/<name>-<millions>m.json,
 * or the file the environment variable `override` names.
 */
export function resultsFileFor(name: string, listings: number, override: string): string {
  return (
    process.env[override] ??
    fileURLToPath(
      new URL(`../results/${name}-${Math.round(listings / 1_000_000)}m.json`, import.meta.url),
    )
  );
}
