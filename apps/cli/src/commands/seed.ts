import { systemClock } from '@domain-index/runtime/clock';
import type { Config } from '@domain-index/config/config';
import { seedIndex } from '@domain-index/worker/indexing/seed-index';
import { openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';
import { createProgress } from './progress';
import { formatSummary } from './summary';
import { io } from '../embedded/cli-io';

/** `domain-index seed --rows N`: deterministic synthetic listings through the import path. */
export async function seedCommand(config: Config, options: { rows: number; seed: number }): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  const database = await openMigratedDatabase(config);
  try {
    const started = performance.now();
    const progress = createProgress('seeding', options.rows, 'rows');
    const summaries = await seedIndex({
      database,
      sources,
      rows: options.rows,
      seed: options.seed,
      clock: systemClock,
      onProgress: (generated) => {
        progress.update(generated);
      },
    });
    progress.stop();
    const seconds = (performance.now() - started) / 1000;
    for (const summary of summaries) io().stdout.write(`${formatSummary(summary)}\n`);
    const rows = summaries.reduce((sum, s) => sum + s.rowsRead, 0);
    io().stdout.write(`seeded ${rows} rows in ${seconds.toFixed(1)} s (${Math.round(rows / seconds)} rows/s)\n`);
    if (summaries.some((summary) => summary.outcome !== 'applied')) io().setExitCode(1);
  } finally {
    await database.close();
  }
}
