// The sort indexes with and without their last column, id, side by side on one dataset (issue
// 43, migration 0023): their sizes, and every statement that walks one, timed alternately with
// each form. The form the database lacks is built beside the other under a `_form` suffix (and
// left there, so a second run measures again at once); each run drops one form inside a
// transaction that is rolled back, so the planner sees only the other. Run it on a benchmark
// database of its own: the table is locked while a form is dropped.
//   BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench sort-index-forms [runs]
// Writes bench/results/sort-index-forms-<millions>m.json (SORT_INDEX_FORMS_RESULTS_FILE to override).
import { writeFileSync } from 'node:fs';
import { SORT_KEY_SQL, sql, type KeyedSortField } from '@domain-index/db';
import { pageStatement } from './page-statement';
import { resultsFileFor } from './results-file';
import { median, openBenchPostgres, shapeStatements, timed } from './statements';

const RUNS = Number(process.argv[2] ?? 100);
/** Runs in a row with one form, before the other form's turn. */
const BLOCK = 10;

const { database, client, listings } = await openBenchPostgres();
type Runner = Pick<typeof client, 'unsafe'>;

type Form = 'with id' | 'without id';
interface SortIndex {
  field: KeyedSortField;
  direction: 'asc' | 'desc';
  /** The index's name in each form. */
  names: Record<Form, string>;
}
const existing = new Map(
  (
    await database.rows<{ name: string; definition: string }>(sql`
      select c.relname as name, pg_get_indexdef(i.indexrelid) as definition
      from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'listings'::regclass and c.relname like 'listings_sort_%'`)
  ).map((row) => [row.name, row.definition]),
);
const sortIndexes: SortIndex[] = [];
for (const [field, keys] of Object.entries(SORT_KEY_SQL) as [KeyedSortField, Record<'asc' | 'desc', string>][])
  for (const direction of ['asc', 'desc'] as const) {
    const name = `listings_sort_${field}_${direction}_idx`;
    const definition = existing.get(name);
    if (definition === undefined) throw new Error(`${name} is missing: migrate the database first`);
    const shipped: Form = /, id\)$/.test(definition) ? 'with id' : 'without id';
    const other: Form = shipped === 'with id' ? 'without id' : 'with id';
    const otherName = `${name}_form`;
    if (!existing.has(otherName)) {
      process.stderr.write(`building ${otherName} (${other})\n`);
      const columns = other === 'with id' ? `${keys[direction]}, domain_name, id` : `${keys[direction]}, domain_name`;
      await client.unsafe(`create index "${otherName}" on listings (${columns})`);
    }
    sortIndexes.push({ field, direction, names: { [shipped]: name, [other]: otherName } as Record<Form, string> });
  }
await client.unsafe('analyze listings');

const sizes = new Map(
  (
    await database.rows<{ name: string; bytes: string }>(sql`
      select c.relname as name, pg_relation_size(c.oid)::text as bytes from pg_class c
      where c.relname like 'listings_sort_%'`)
  ).map((row) => [row.name, Number(row.bytes)]),
);
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

const statements = await shapeStatements(database);
// pages deep in each keyed order: after a row of the middle of the table, and the last pages,
// where the planner's estimate of "after the cursor" is smallest
for (const sortIndex of sortIndexes) {
  const key = SORT_KEY_SQL[sortIndex.field][sortIndex.direction];
  const query = { status: 'all', sort: sortIndex.field, order: sortIndex.direction };
  const positions = {
    'after the middle row': `where id >= (select max(id) / 2 from listings) order by id`,
    'after the 100th row from the end': `order by ${key} desc, domain_name desc, id desc offset 100`,
  };
  for (const [where, rest] of Object.entries(positions)) {
    const [row] = await client.unsafe<{ key: number; name: string; id: string }[]>(
      `select ${key} as key, domain_name as name, id::text as id from listings ${rest} limit 1`,
    );
    const after = { key: row!.key === Infinity ? null : row!.key, name: row!.name, id: Number(row!.id) };
    statements.push({
      name: `status=all sort=${sortIndex.field} ${sortIndex.direction}, ${where}${after.key === null ? ' (no value)' : ''}`,
      ...(await pageStatement(database, query, after)),
    });
  }
}

/** Thrown to end a transaction that dropped a form: nothing it did is kept. */
class RollBack extends Error {}

/** The sort indexes a plan reads. */
function indexesIn(node: Record<string, unknown>, into: string[] = []): string[] {
  if (typeof node['Index Name'] === 'string' && node['Index Name'].startsWith('listings_sort_'))
    into.push(node['Index Name']);
  for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) indexesIn(child, into);
  return into;
}

/** Runs `work` with only `form`'s sort indexes in sight. */
async function withOnly<T>(form: Form, work: (tx: Runner) => Promise<T>): Promise<T> {
  let result: T | undefined;
  await client
    .begin(async (tx) => {
      for (const sortIndex of sortIndexes)
        await tx.unsafe(`drop index "${sortIndex.names[form === 'with id' ? 'without id' : 'with id']}"`);
      result = await work(tx);
      throw new RollBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RollBack)) throw error;
    });
  return result!;
}


interface Comparison {
  statement: string;
  withIdMs: number;
  withoutIdMs: number;
  ratio: number;
  plans: Record<Form, string[]>;
}
const FORMS: Form[] = ['with id', 'without id'];
const comparisons: Comparison[] = [];
console.log('| statement | with id, ms | without id, ms | ratio |\n|---|---|---|---|');
for (const statement of statements) {
  const plans = {} as Record<Form, string[]>;
  for (const form of FORMS)
    plans[form] = await withOnly(form, async (tx) => {
      const [row] = await tx.unsafe(`explain (format json) ${statement.sql}`, statement.params as never[]);
      return indexesIn((row!['QUERY PLAN'] as [{ Plan: Record<string, unknown> }])[0].Plan);
    });
  // statements that walk no sort index are the same with either form
  if (plans['with id'].length === 0 && plans['without id'].length === 0) continue;
  const times: Record<Form, number[]> = { 'with id': [], 'without id': [] };
  for (let done = 0; done < RUNS; done += BLOCK)
    for (const form of FORMS)
      await withOnly(form, async (tx) => {
        await timed(tx, statement);
        for (let i = 0; i < Math.min(BLOCK, RUNS - done); i += 1) times[form].push(await timed(tx, statement));
      });
  const comparison: Comparison = {
    statement: statement.name,
    withIdMs: median(times['with id']),
    withoutIdMs: median(times['without id']),
    ratio: 0,
    plans,
  };
  comparison.ratio = comparison.withoutIdMs / comparison.withIdMs;
  comparisons.push(comparison);
  console.log(
    `| ${statement.name} | ${comparison.withIdMs.toFixed(2)} | ${comparison.withoutIdMs.toFixed(2)} | ${comparison.ratio.toFixed(2)} |`,
  );
}
await database.close();

const total = (form: Form) => sortIndexes.reduce((sum, sortIndex) => sum + sizes.get(sortIndex.names[form])!, 0);
console.log(`\n${listings} listings; ${RUNS} runs of each statement with each form, alternating in blocks of ${BLOCK}\n`);
console.log('| sort index | with id, MiB | without id, MiB |\n|---|---|---|');
for (const sortIndex of sortIndexes)
  console.log(
    `| ${sortIndex.field} ${sortIndex.direction} | ${mib(sizes.get(sortIndex.names['with id'])!)} | ${mib(sizes.get(sortIndex.names['without id'])!)} |`,
  );
console.log(`| all twelve | ${mib(total('with id'))} | ${mib(total('without id'))} |`);
const file = resultsFileFor('sort-index-forms', listings, 'SORT_INDEX_FORMS_RESULTS_FILE');
writeFileSync(
  file,
  `${JSON.stringify(
    {
      listings: listings,
      runs: RUNS,
      measuredAt: new Date().toISOString(),
      sizesMiB: Object.fromEntries(
        sortIndexes.map((s) => [`${s.field} ${s.direction}`, { withId: mib(sizes.get(s.names['with id'])!), withoutId: mib(sizes.get(s.names['without id'])!) }]),
      ),
      totalMiB: { withId: mib(total('with id')), withoutId: mib(total('without id')) },
      statements: comparisons,
    },
    null,
    2,
  )}\n`,
);
