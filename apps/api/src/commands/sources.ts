import { sourceSyncs } from '@domain-index/db';
import { feedKindOf } from '@domain-index/indexer';
import type { Config } from '../config';
import { openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';

/** `domain-index sources`: the configured marketplaces and how each last synced. */
export async function sourcesCommand(config: Config): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  const database = await openMigratedDatabase(config);
  try {
    const syncs = new Map((await database.db.select().from(sourceSyncs)).map((row) => [row.source, row]));
    const rows = sources.map((source) => {
      const sync = syncs.get(source.id);
      const every = source.everyMinutes % 60 === 0 ? `${source.everyMinutes / 60}h` : `${source.everyMinutes}m`;
      const last = sync?.lastFinishedAt ? `${sync.lastOutcome ?? ''} ${sync.lastFinishedAt.toISOString()}` : 'never';
      return [source.id, source.name, every, feedKindOf(source), last, source.feed];
    });
    const header = ['ID', 'NAME', 'EVERY', 'FORMAT', 'LAST SYNC', 'FEED'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    for (const row of [header, ...rows]) {
      process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()}\n`);
    }
  } finally {
    await database.close();
  }
}
