import { feedKindOf } from '@domain-index/indexer';
import type { Config } from '@domain-index/config/config';
import { readSyncStates } from '@domain-index/worker/ops/sync-state';
import { openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';
import { io } from '../embedded/cli-io';

/** An instant to the second, as the table shows it. */
const shown = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * `domain-index sources`: the configured marketplaces, how each last synced, how many syncs in
 * a row failed, when it is due next and why its last sync failed, as GET /health and the sync
 * metrics report them.
 */
export async function sourcesCommand(config: Config): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  const database = await openMigratedDatabase(config);
  try {
    const states = await readSyncStates(database, sources);
    const rows = sources.map((source, index) => {
      const state = states[index]!;
      const every = source.everyMinutes % 60 === 0 ? `${source.everyMinutes / 60}h` : `${source.everyMinutes}m`;
      const last = state.lastFinishedAt === undefined ? 'never' : `${state.lastOutcome ?? ''} ${shown(state.lastFinishedAt)}`;
      const next = state.nextDue === undefined ? 'now' : shown(state.nextDue);
      return [source.id, source.name, every, feedKindOf(source), last, String(state.consecutiveFailures), next, source.feed, state.lastError ?? '-'];
    });
    const header = ['ID', 'NAME', 'EVERY', 'FORMAT', 'LAST SYNC', 'FAILURES', 'NEXT DUE', 'FEED', 'LAST ERROR'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    for (const row of [header, ...rows]) {
      io().stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()}\n`);
    }
  } finally {
    await database.close();
  }
}
