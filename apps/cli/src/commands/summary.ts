import type { ImportSummary } from '@domain-index/worker/indexing/import-batch';

/** One line per batch, the same in `import`, `seed` and `sync`. */
export function formatSummary(summary: ImportSummary): string {
  const reasons = Object.entries(summary.skippedReasons)
    .map(([reason, count]) => `${reason}: ${count}`)
    .join('; ');
  const skipped = summary.skipped > 0 ? `, skipped ${summary.skipped} (${reasons})` : '';
  const counts = `read ${summary.rowsRead}, inserted ${summary.inserted}, updated ${summary.updated}, unchanged ${summary.unchanged}, removed ${summary.removed}, rejected ${summary.rejected}${skipped}, ${summary.seconds.toFixed(2)} s`;
  return summary.outcome === 'applied'
    ? `${summary.source}: applied: ${counts}`
    : `${summary.source}: REJECTED, previous batch kept: ${summary.reason ?? ''} (${counts})`;
}
