// Watched names at scale: `pnpm --filter @domain-index/bench name-checks`.
// 100,000 watched names (BENCH_WATCHED) across 50 TLDs, each TLD's registry a loopback RDAP
// server of its own (its own host: the client's limits are per host) that answers RFC 9083
// domain objects in a realistic mix of phases and refuses with 429 whatever exceeds 60 requests
// a minute. Measured:
// 1. the checks a day the schedule needs for that mix (check-schedule.ts) against what the limits
//    allow (RDAP_LIMITS' default, 2 in flight and 60 a minute per server);
// 2. the worker's checks for BENCH_NAMES_SECONDS under those limits, then with the limits lifted
//    (its own ceiling): checks a second, 429s met, and the database's cost per check (PostgreSQL
//    CPU, transactions and rows written);
// 3. `GET /api/v1/names/{domain}` p50 at concurrency 1 on the benchmark's listings dataset
//    (BENCH_ROWS, 5M by default; 20M with BENCH_ROWS=20000000), beside the lookup of the same names.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { migrateDatabase, openDatabase, sql, type Database } from '@domain-index/db';
import { nextCheckAt } from '@domain-index/names/check-schedule';
import { createRdapClient } from '@domain-index/rdap';
import { systemClock } from '@domain-index/runtime/clock';
import { RegistrationChecks } from '@domain-index/worker/names/registration-checks';
import { cpuDuring } from './cpu';
import { ensureDatabaseExists, ensureDataset } from './dataset';
import { percentiles } from './measure';
import { benchKey, startApi } from './servers';
import { BENCH } from './settings';

const log = (line: string) => process.stderr.write(`${line}\n`);
const WATCHED = Number(process.env.BENCH_WATCHED ?? 100_000);
const SECONDS = Number(process.env.BENCH_NAMES_SECONDS ?? 60);
const NAMES_DATABASE_URL =
  process.env.BENCH_NAMES_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/di_bench_names';
const SERVER_PER_MINUTE = 60;
const DAY = 86_400_000;
const TLDS = [
  'com',
  'net',
  'org',
  'io',
  'ai',
  'co',
  'app',
  'dev',
  'xyz',
  'info',
  'biz',
  'me',
  'tv',
  'cc',
  'us',
  'uk',
  'de',
  'fr',
  'nl',
  'eu',
  'ca',
  'au',
  'in',
  'jp',
  'ch',
  'se',
  'no',
  'dk',
  'fi',
  'es',
  'it',
  'pl',
  'be',
  'at',
  'nz',
  'shop',
  'store',
  'online',
  'site',
  'tech',
  'cloud',
  'blog',
  'news',
  'live',
  'games',
  'studio',
  'agency',
  'media',
  'art',
  'club',
] as const;

/** A name's registry state, fixed by its name: the mix a watchlist of investors' names has. */
function stateOf(
  name: string,
  now: number,
): {
  status: number;
  statuses: string[];
  expires: number;
  phase: 'registered' | 'redemption' | 'pending_delete' | 'available';
} {
  const draw = createHash('sha256').update(name).digest().readUInt32BE(0) / 2 ** 32;
  // 86% registered far from expiry, 4% within a day of it, 4% in redemption, 2% pending delete, 4% available (404)
  if (draw < 0.86)
    return {
      status: 200,
      statuses: ['client transfer prohibited'],
      expires: now + (30 + Math.floor(draw * 300)) * DAY,
      phase: 'registered',
    };
  if (draw < 0.9)
    return { status: 200, statuses: ['active'], expires: now + DAY / 2, phase: 'registered' };
  if (draw < 0.94)
    return {
      status: 200,
      statuses: ['redemption period'],
      expires: now - 40 * DAY,
      phase: 'redemption',
    };
  if (draw < 0.96)
    return {
      status: 200,
      statuses: ['pending delete'],
      expires: now - 70 * DAY,
      phase: 'pending_delete',
    };
  return { status: 404, statuses: [], expires: 0, phase: 'available' };
}

/** Whether the registries refuse past SERVER_PER_MINUTE: off to measure the worker's own ceiling. */
let enforceLimits = true;

/** One TLD's registry: RFC 9083 domain objects, 429 past SERVER_PER_MINUTE in a rolling minute. */
async function startRegistry(
  tld: string,
): Promise<{ server: Server; base: string; served: () => number; refused: () => number }> {
  const times: number[] = [];
  let served = 0;
  let refused = 0;
  const server = createServer((request, response) => {
    const now = Date.now();
    while (times.length > 0 && times[0]! <= now - 60_000) times.shift();
    if (enforceLimits && times.length >= SERVER_PER_MINUTE) {
      refused += 1;
      response
        .writeHead(429, { 'retry-after': '60', 'content-type': 'application/rdap+json' })
        .end('{"errorCode":429,"title":"Too Many Requests"}');
      return;
    }
    times.push(now);
    served += 1;
    const name = decodeURIComponent(
      (request.url ?? '').replace(/^\/rdap\/domain\//, ''),
    ).toLowerCase();
    const state = stateOf(name, now);
    if (state.status === 404) {
      response
        .writeHead(404, { 'content-type': 'application/rdap+json' })
        .end('{"errorCode":404,"title":"Not Found"}');
      return;
    }
    const iso = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
    response.writeHead(200, { 'content-type': 'application/rdap+json' }).end(
      JSON.stringify({
        rdapConformance: [
          'rdap_level_0',
          'icann_rdap_response_profile_0',
          'icann_rdap_technical_implementation_guide_0',
        ],
        objectClassName: 'domain',
        handle: `${name.replace(/\W/g, '_')}-${tld.toUpperCase()}`,
        ldhName: name.toUpperCase(),
        status: state.statuses,
        events: [
          { eventAction: 'registration', eventDate: iso(state.expires - 365 * DAY * 3) },
          { eventAction: 'expiration', eventDate: iso(state.expires) },
          { eventAction: 'last changed', eventDate: iso(state.expires - 365 * DAY) },
          { eventAction: 'last update of RDAP database', eventDate: iso(now) },
        ],
        entities: [
          {
            objectClassName: 'entity',
            roles: ['registrar'],
            publicIds: [{ type: 'IANA Registrar ID', identifier: '292' }],
            vcardArray: [
              'vcard',
              [
                ['version', {}, 'text', '4.0'],
                ['fn', {}, 'text', 'MarkMonitor Inc.'],
              ],
            ],
          },
        ],
        nameservers: [
          { objectClassName: 'nameserver', ldhName: `NS1.${tld.toUpperCase()}-DNS.NET` },
        ],
        notices: [{ title: 'Terms of Use', description: ['Service subject to Terms of Use.'] }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    base: `http://127.0.0.1:${port}/rdap/`,
    served: () => served,
    refused: () => refused,
  };
}

/** The names, their watchlists (1,000 names each) and their registration rows, all due now. */
async function watchNames(database: Database, names: string[]): Promise<void> {
  await database.rows(
    sql`truncate watchlist_domains, watchlists, name_registrations, name_history cascade`,
  );
  await database.rows(
    sql`insert into accounts (id, email, plan_id) values ('acct_bench_names', 'names@example.com', 'pro') on conflict do nothing`,
  );
  for (let start = 0; start < names.length; start += 1_000) {
    const id = `wl_bench_${String(start / 1_000).padStart(4, '0')}`;
    const chunk = names.slice(start, start + 1_000);
    await database.rows(
      sql`insert into watchlists (id, account_id, name) values (${id}, 'acct_bench_names', ${id})`,
    );
    await database.rows(
      sql`insert into watchlist_domains (watchlist_id, domain_name) select ${id}, unnest(string_to_array(${chunk.join(',')}, ','))`,
    );
    await database.rows(
      sql`insert into name_registrations (domain_name, next_check_at) select unnest(string_to_array(${chunk.join(',')}, ',')), now() - interval '1 minute' on conflict do nothing`,
    );
  }
}

/** What the database did, from its own counters. */
async function databaseCounters(database: Database): Promise<{ commits: number; written: number }> {
  const [row] = await database.rows<{ commits: string; written: string }>(
    sql`select xact_commit::text as commits, (tup_inserted + tup_updated + tup_deleted)::text as written from pg_stat_database where datname = current_database()`,
  );
  return { commits: Number(row!.commits), written: Number(row!.written) };
}

const registries = await Promise.all(TLDS.map((tld) => startRegistry(tld)));
const bootstrap = createServer((_request, response) => {
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(
      JSON.stringify({
        version: '1.0',
        publication: new Date().toISOString(),
        description: 'bench',
        services: TLDS.map((tld, i) => [[tld], [registries[i]!.base]]),
      }),
    );
});
await new Promise<void>((resolve) => bootstrap.listen(0, '127.0.0.1', resolve));
const bootstrapUrl = `http://127.0.0.1:${(bootstrap.address() as AddressInfo).port}/dns.json`;

const names = Array.from(
  { length: WATCHED },
  (_, i) => `watched-name-${i}.${TLDS[i % TLDS.length]}`,
);
const now = Date.now();

// 1. what the schedule needs a day for this mix, against what the limits allow
const neededPerDay = names.reduce((sum, name) => {
  const state = stateOf(name, now);
  const expectedDropAt =
    state.phase === 'redemption'
      ? new Date(now + 35 * DAY)
      : state.phase === 'pending_delete'
        ? new Date(now + 2 * DAY)
        : null;
  const interval =
    nextCheckAt(
      {
        phase: state.phase,
        expiresAt: state.expires === 0 ? null : new Date(state.expires),
        expectedDropAt,
        availableSince: null,
      },
      new Date(now),
      () => 0.5,
    ).getTime() - now;
  return sum + DAY / interval;
}, 0);
const allowedPerDay = TLDS.length * SERVER_PER_MINUTE * 1440;
log(
  `${WATCHED} names on ${TLDS.length} TLDs: the schedule needs ${Math.round(neededPerDay)} checks a day (${Math.round(neededPerDay / TLDS.length)} per server); the limits allow ${allowedPerDay} (${SERVER_PER_MINUTE * 1440} per server): ${(neededPerDay / allowedPerDay).toFixed(3)} of it`,
);

await ensureDatabaseExists(NAMES_DATABASE_URL);
let database = await openDatabase({ databaseUrl: NAMES_DATABASE_URL, maxConnections: 10 });
/**
 * Vacuums what setup wrote, then reconnects: a backend hands its statistics to pg_stat_database
 * when it exits (else up to 10 s later), so setup's writes are not counted in the next run.
 */
async function settle(): Promise<void> {
  await database.rows(sql`vacuum analyze name_registrations`);
  await database.rows(sql`vacuum analyze watchlist_domains`);
  await database.close();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  database = await openDatabase({ databaseUrl: NAMES_DATABASE_URL, maxConnections: 10 });
}
const runs: Record<string, unknown>[] = [];
try {
  await migrateDatabase(database);
  await watchNames(database, names);
  log(`watched ${WATCHED} names in ${WATCHED / 1_000} watchlists`);
  await settle();

  // 2. the worker's turns, as `sync` runs them, under the default limits and then without
  for (const [label, limits, enforce] of [
    ['default limits (2 in flight, 60 a minute per server)', '*=2/60', true],
    [
      'limits lifted (16 in flight, 6,000 a minute; the registries refusing nothing)',
      '*=16/6000',
      false,
    ],
  ] as const) {
    enforceLimits = enforce;
    const rdap = createRdapClient({ bootstrapUrl, limits, log: () => undefined });
    await rdap.refreshBootstrap();
    const checks = new RegistrationChecks({ database, clock: systemClock, rdap });
    const servedBefore = registries.reduce((sum, r) => sum + r.served(), 0);
    const refusedBefore = registries.reduce((sum, r) => sum + r.refused(), 0);
    const before = await databaseCounters(database);
    const started = performance.now();
    const { result: checked, cpu } = await cpuDuring(process.pid, async () => {
      let count = 0;
      // turns of 500 due names as the worker takes them, each asked all at once (the client queues
      // what the limits do not allow yet); the last turn started before SECONDS ends runs to its end
      while (performance.now() < started + SECONDS * 1_000) {
        const turn = await checks.run({ limit: 500 });
        count += turn.filter(
          (name) => name.outcome === 'found' || name.outcome === 'not_found',
        ).length;
        if (turn.length === 0) break;
      }
      return count;
    });
    const seconds = (performance.now() - started) / 1_000;
    const after = await databaseCounters(database);
    await rdap.close();
    const run = {
      label,
      seconds: Number(seconds.toFixed(1)),
      checked,
      checksPerSecond: Number((checked / seconds).toFixed(1)),
      checksPerDayAtThisRate: Math.round((checked / seconds) * 86_400),
      served: registries.reduce((sum, r) => sum + r.served(), 0) - servedBefore,
      refused429: registries.reduce((sum, r) => sum + r.refused(), 0) - refusedBefore,
      postgresCpuUsPerCheck: Math.round((cpu.postgres * 1_000) / Math.max(1, checked)),
      // this process: the worker's code and the loopback registries together
      workerAndRegistriesCpuUsPerCheck: Math.round((cpu.loadGenerator * 1_000) / Math.max(1, checked)),
      transactionsPerCheck: Number(
        ((after.commits - before.commits) / Math.max(1, checked)).toFixed(2),
      ),
      rowsWrittenPerCheck: Number(
        ((after.written - before.written) / Math.max(1, checked)).toFixed(2),
      ),
    };
    runs.push(run);
    log(`${label}: ${JSON.stringify(run)}`);
    // the next run starts from names all due again
    await database.rows(
      sql`update name_registrations set next_check_at = now() - interval '1 minute'`,
    );
  }
} finally {
  await database.close();
  for (const registry of registries) registry.server.close();
  bootstrap.close();
}

// 3. a name's page at BENCH_ROWS listings, at concurrency 1, beside the lookup of the same names
const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
const key = await benchKey(BENCH.databaseUrl);
const listed = await (async () => {
  const listingsDb = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
  try {
    return (
      await listingsDb.rows<{ domain_name: string }>(
        sql`select domain_name from listings tablesample system (1) where auction_end_time is null or auction_end_time > now() + interval '1 hour' limit 500`,
      )
    ).map((row) => row.domain_name);
  } finally {
    await listingsDb.close();
  }
})();
const api = await startApi({
  DATABASE_URL: BENCH.databaseUrl,
  WORKERS: '1',
  REGISTRATION_CHECKS: 'off',
});
const page: number[] = [];
const lookup: number[] = [];
try {
  const timed = async (path: string, into: number[] | undefined) => {
    const started = performance.now();
    const response = await fetch(`${api.url}${path}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await response.arrayBuffer();
    // a name's page answers any valid name; a lookup may find the listing ended since it was sampled (404)
    if (response.status !== 200 && !(response.status === 404 && path.startsWith('/api/v1/domains/'))) throw new Error(`${path} answered ${response.status}`);
    into?.push(performance.now() - started);
  };
  for (const name of listed.slice(0, 20)) await timed(`/api/v1/names/${name}`, undefined);
  // interleaved, name by name: neither side meets a warmer cache
  for (const name of listed) {
    await timed(`/api/v1/names/${name}`, page);
    await timed(`/api/v1/domains/${name}`, lookup);
  }
} finally {
  await api.stop();
}
const namePage = {
  listings: dataset.listings,
  samples: page.length,
  namePage: percentiles(page),
  lookup: percentiles(lookup),
};
log(`GET /api/v1/names/{domain} at ${dataset.listings} listings: ${JSON.stringify(namePage)}`);

const file = fileURLToPath(
  new URL(`../results/${process.env.BENCH_RESULTS_FILE ?? 'name-checks.json'}`, import.meta.url),
);
mkdirSync(fileURLToPath(new URL('../results/', import.meta.url)), { recursive: true });
writeFileSync(
  file,
  `${JSON.stringify({ at: new Date().toISOString(), watched: WATCHED, tlds: TLDS.length, neededPerDay: Math.round(neededPerDay), allowedPerDay, runs, namePage }, null, 2)}\n`,
);
log(`written ${file}`);
