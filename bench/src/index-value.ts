// What each index of `listings` is worth: its size, the benchmark's statements whose plans use it,
// and what those statements cost without it, measured by dropping the index inside a transaction
// that is rolled back (nothing is rebuilt; the table is locked meanwhile, so run it on a
// benchmark database of its own).
//   BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench index-value
// Writes bench/results/index-value-<millions>m.json (INDEX_VALUE_RESULTS_FILE to override).
import { writeFileSync } from 'node:fs';
import { sql } from '@domain-index/db';
import { lookupStatement } from '@domain-index/api/listings/lookup-query';
import { resultsFileFor } from './results-file';
import { openBenchPostgres, shapeStatements, type NamedStatement } from './statements';

/** Runs of each statement; the figure is their median. */
const RUNS = Number(process.env.INDEX_VALUE_RUNS ?? 3);
/** A statement that takes longer than this without an index is reported as over it. */
const TIMEOUT_MS = Number(process.env.INDEX_VALUE_TIMEOUT_MS ?? 20_000);

const { database, client, listings } = await openBenchPostgres();
/** The client, or a transaction of it: what a statement is run on. */
type Runner = Pick<typeof client, 'unsafe'>;
const [{ name: existingName } = { name: 'example.com' }] = await database.rows<{ name: string }>(
  sql`select domain_name as name from listings where auction_end_time is null limit 1`,
);

type Statement = NamedStatement;
const statements = await shapeStatements(database);
statements.push({
  name: 'lookup existing',
  ...lookupStatement(database, existingName, new Date()),
});
statements.push({
  name: 'lookup missing',
  ...lookupStatement(database, 'not-listed-anywhere-xyz.com', new Date()),
});

/** The indexes a plan reads, by name. */
function indexesIn(node: Record<string, unknown>, into = new Set<string>()): Set<string> {
  if (typeof node['Index Name'] === 'string') into.add(node['Index Name']);
  for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? [])
    indexesIn(child, into);
  return into;
}

/** One run: the plan's indexes and the time PostgreSQL reports (planning + execution), ms. */
async function run(
  tx: Runner,
  statement: Statement,
): Promise<{ ms: number; indexes: Set<string> }> {
  const [row] = await tx.unsafe(
    `explain (analyze, timing off, format json) ${statement.sql}`,
    statement.params as never[],
  );
  const [plan] = row!['QUERY PLAN'] as [
    { Plan: Record<string, unknown>; 'Planning Time': number; 'Execution Time': number },
  ];
  return { ms: plan['Planning Time'] + plan['Execution Time'], indexes: indexesIn(plan.Plan) };
}

/** Median time of RUNS runs, or undefined when a run overran TIMEOUT_MS. */
async function median(
  tx: Runner,
  statement: Statement,
): Promise<{ ms: number | undefined; indexes: Set<string> }> {
  const times: number[] = [];
  let indexes = new Set<string>();
  for (let i = 0; i < RUNS; i += 1) {
    try {
      const result = await run(tx, statement);
      times.push(result.ms);
      indexes = result.indexes;
    } catch {
      return { ms: undefined, indexes };
    }
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], indexes };
}

const indexes = await database.rows<{
  name: string;
  bytes: string;
  definition: string;
  constraint: boolean;
}>(sql`
  select c.relname as name, pg_relation_size(i.indexrelid)::text as bytes, pg_get_indexdef(i.indexrelid) as definition,
         i.indisunique or exists (select 1 from pg_constraint k where k.conindid = i.indexrelid) as constraint
  from pg_index i join pg_class c on c.oid = i.indexrelid
  where i.indrelid = 'listings'::regclass
  order by pg_relation_size(i.indexrelid) desc`);
const [heap] = await database.rows<{ bytes: string }>(
  sql`select pg_table_size('listings')::text as bytes`,
);

// With every index: each statement's time and the indexes its plan reads (one run first to warm it).
const baseline = new Map<string, { ms: number | undefined; indexes: Set<string> }>();
for (const statement of statements) {
  await run(client, statement);
  baseline.set(statement.name, await median(client, statement));
  process.stderr.write(
    `baseline ${statement.name}: ${baseline.get(statement.name)!.ms?.toFixed(1)} ms\n`,
  );
}

/** Thrown to end the transaction that dropped an index: nothing it did is kept. */
class RollBack extends Error {}

interface IndexValue {
  name: string;
  definition: string;
  mib: number;
  /** The statements whose plans read it, with their time with and without it (ms; null: over the timeout). */
  serves: {
    statement: string;
    withMs: number | undefined;
    withoutMs: number | null;
    planWithout: string[];
  }[];
}
const results: IndexValue[] = [];
for (const index of indexes) {
  const served = statements.filter((statement) =>
    baseline.get(statement.name)!.indexes.has(index.name),
  );
  const value: IndexValue = {
    name: index.name,
    definition: index.definition,
    mib: Math.round(Number(index.bytes) / 2 ** 20),
    serves: [],
  };
  results.push(value);
  // A unique index or one behind a constraint (the primary key, the import's upsert key) stays
  // whatever it costs: it keeps the data right, not a search fast.
  if (served.length === 0 || index.constraint) continue;
  await client
    .begin(async (tx) => {
      await tx.unsafe(`set local statement_timeout = ${TIMEOUT_MS}`);
      await tx.unsafe(`drop index "${index.name}"`);
      for (const statement of served) {
        const without = await median(tx, statement);
        value.serves.push({
          statement: statement.name,
          withMs: baseline.get(statement.name)!.ms,
          withoutMs: without.ms ?? null,
          planWithout: [...without.indexes],
        });
        process.stderr.write(
          `without ${index.name}: ${statement.name} ${without.ms?.toFixed(1) ?? 'timeout'} ms\n`,
        );
      }
      throw new RollBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RollBack)) throw error;
    });
}
await database.close();

const ms = (value: number | null | undefined) =>
  value === undefined || value === null ? `over ${TIMEOUT_MS / 1000} s` : `${value.toFixed(1)} ms`;
console.log(`${listings} listings; heap ${Math.round(Number(heap?.bytes) / 2 ** 20)} MiB\n`);
console.log('| index | MiB | statements whose plan reads it: with it -> without it |');
console.log('|---|---|---|');
for (const value of results) {
  const index = indexes.find((i) => i.name === value.name)!;
  const serves =
    value.serves.length > 0
      ? value.serves.map((s) => `${s.statement}: ${ms(s.withMs)} -> ${ms(s.withoutMs)}`).join('; ')
      : index.constraint
        ? "unique: the primary key or the import's upsert key (kept)"
        : 'none of the benchmark statements';
  console.log(`| ${value.name} | ${value.mib} | ${serves} |`);
}
const file = resultsFileFor('index-value', listings, 'INDEX_VALUE_RESULTS_FILE');
writeFileSync(
  file,
  `${JSON.stringify({ listings: listings, heapMiB: Math.round(Number(heap?.bytes) / 2 ** 20), runs: RUNS, timeoutMs: TIMEOUT_MS, measuredAt: new Date().toISOString(), indexes: results }, null, 2)}\n`,
);
