// The not-ended rule's two forms side by side, statement by statement: every search shape's page
// statement and the lookup as the API sends them, once with `coalesce(auction_end_time,
// 'infinity') > now` (migration 0022) and once with the `is null or >` it replaced, alternating,
// median client-side time of each (issue 43; figures in bench/notes/97).
//   BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench not-ended-forms [runs]
import { openDatabase } from '@domain-index/db';
import { lookupStatement } from '@domain-index/api/listings/lookup-query';
import { BENCH } from './settings';
import { median, shapeStatements, type NamedStatement } from './statements';

const RUNS = Number(process.argv[2] ?? 300);
const database = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
if (database.driver.kind !== 'postgres') throw new Error('PostgreSQL only');
const client = database.driver.client;

const RULE =
  /coalesce\("listings"\."auction_end_time", 'infinity'::timestamptz\) > (\$\d+(?:::timestamptz)?)/;
/** The statement with the rule as it was written before. */
function orForm(text: string): string {
  const match = RULE.exec(text);
  if (match === null) throw new Error('the statement holds no not-ended rule');
  return text.replace(
    RULE,
    () => `("listings"."auction_end_time" is null or "listings"."auction_end_time" > ${match[1]})`,
  );
}

interface Statement extends NamedStatement {
  prepare?: boolean;
}
const statements: Statement[] = await shapeStatements(database);
statements.push({ name: 'lookup', ...lookupStatement(database, 'example.com', new Date()) });

async function timed(text: string, statement: Statement): Promise<number> {
  const started = performance.now();
  await client.unsafe(text, statement.params as never[], { prepare: statement.prepare === true });
  return performance.now() - started;
}

console.log('| statement | `is null or >`, ms | coalesce, ms | ratio |\n|---|---|---|---|');
for (const statement of statements) {
  const before = orForm(statement.sql);
  const orTimes: number[] = [];
  const coalesceTimes: number[] = [];
  for (let i = 0; i < 5; i += 1)
    await Promise.all([timed(before, statement), timed(statement.sql, statement)]);
  for (let i = 0; i < RUNS; i += 1) {
    orTimes.push(await timed(before, statement));
    coalesceTimes.push(await timed(statement.sql, statement));
  }
  const [a, b] = [median(orTimes), median(coalesceTimes)];
  console.log(`| ${statement.name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(2)} |`);
}
await database.close();
