import type { Database } from '@domain-index/db';
import { removeAbandonedSpools } from '../feeds/spool';
import { dropAbandonedWorkTables } from './work-tables';

/** What a process killed mid-import left behind, and this start removed. */
export interface Leftovers {
  /** Staging and first-load tables dropped. */
  tables: string[];
  /** Downloaded feed directories removed. */
  feedFiles: number;
}

/**
 * Removes what imports killed mid-batch left behind (work tables whose lease lapsed, downloads
 * of processes that are gone). Run at the start of `import`, `sync` and `migrate`.
 */
export async function removeLeftovers(database: Database): Promise<Leftovers> {
  const [tables, feedFiles] = await Promise.all([dropAbandonedWorkTables(database), removeAbandonedSpools()]);
  return { tables, feedFiles };
}

/** One line for an operator, or undefined when nothing was left behind. */
export function describeLeftovers({ tables, feedFiles }: Leftovers): string | undefined {
  if (tables.length === 0 && feedFiles === 0) return undefined;
  const parts = [
    ...(tables.length > 0 ? [`${tables.length} work table${tables.length === 1 ? '' : 's'} (${tables.join(', ')})`] : []),
    ...(feedFiles > 0 ? [`${feedFiles} downloaded feed${feedFiles === 1 ? '' : 's'}`] : []),
  ];
  return `removed what an interrupted import left behind: ${parts.join(' and ')}`;
}
