// EXPLAIN (ANALYZE, BUFFERS) of every search shape's page statement, as the API sends it, into
// bench/results/explain.txt: `pnpm --filter @domain-index/bench explain`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '@domain-index/db';
import { pageStatement } from './page-statement';
import { BENCH } from './settings';
import { SEARCH_SHAPES } from './shapes';

const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
if (database.driver.kind !== 'postgres') throw new Error('PostgreSQL only');
const client = database.driver.client;
const only = process.argv[2];
let out = '';
for (const shape of SEARCH_SHAPES) {
  if (only !== undefined && !shape.name.includes(only)) continue;
  const statement = await pageStatement(database, shape.query ?? {});
  const rows = await client.unsafe(`explain (analyze, buffers) ${statement.sql}`, statement.params as never[]);
  out += `== ${shape.name} [${statement.strategy}]\n${rows.map((row) => String(row['QUERY PLAN'])).join('\n')}\n\n`;
}
await database.close();
if (only === undefined) writeFileSync(fileURLToPath(new URL('../results/explain.txt', import.meta.url)), out);
process.stdout.write(out);
