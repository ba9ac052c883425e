// EXPLAIN (ANALYZE, BUFFERS) of every search shape's page statement, as the API sends it, into
// bench/results/explain.txt: `pnpm --filter @domain-index/bench explain`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { searchQuerySchema } from '@domain-index/contract';
import { openDatabase } from '@domain-index/db';
import { searchConditions } from '@domain-index/api/src/search/filters';
import { resolveOrdering } from '@domain-index/api/src/search/ordering';
import { countMatches } from '@domain-index/api/src/search/count';
import { pageQuery } from '@domain-index/api/src/search/page-query';
import { pageStrategy } from '@domain-index/api/src/search/page-strategy';
import { BENCH } from './settings';
import { SEARCH_SHAPES } from './shapes';

const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
if (database.driver.kind !== 'postgres') throw new Error('PostgreSQL only');
const client = database.driver.client;
const only = process.argv[2];
let out = '';
for (const shape of SEARCH_SHAPES) {
  if (only !== undefined && !shape.name.includes(only)) continue;
  const q = searchQuerySchema.parse(shape.query ?? {});
  const now = new Date();
  const where = searchConditions(q, now);
  // the same strategy the API picks, from the count it reports (100 ms: the API's default budget)
  const ordering = resolveOrdering(q);
  const strategy = pageStrategy(q, ordering, await countMatches(database, where, 100));
  const statement = pageQuery(database, where, ordering, undefined, q.limit, now, strategy).toSQL();
  const rows = await client.unsafe(`explain (analyze, buffers) ${statement.sql}`, statement.params as never[]);
  out += `== ${shape.name} [${strategy}]\n${rows.map((row) => String(row['QUERY PLAN'])).join('\n')}\n\n`;
}
await database.close();
if (only === undefined) writeFileSync(fileURLToPath(new URL('../results/explain.txt', import.meta.url)), out);
process.stdout.write(out);
