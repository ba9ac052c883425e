import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
// the URL rules alone: config must not load the database drivers (the CLI's --help stays fast)
import { pgbouncerParameterProblem } from '@domain-index/db/database-url';
import { z } from 'zod';
import { parseRdapLimits } from '@domain-index/rdap/limits';
import { parseMailFrom, parseSmtpUrl, type SmtpSettings } from '@domain-index/mail/mail-settings';
import { EMPTY_ALLOW_LIST, parseAllowedHosts, type AllowList } from '@domain-index/webhooks/address-rules';
import { DEFAULT_RETRY_SCHEDULE, DISABLE_AFTER_MS, parseRetrySchedule } from '@domain-index/webhooks/retry-schedule';
import { WEBHOOK_CONNECT_TIMEOUT_MS, WEBHOOK_RESPONSE_TIMEOUT_MS, WEBHOOK_TIMEOUT_MS } from '@domain-index/webhooks/safe-request';
import { DEFAULT_CONCURRENCY } from '@domain-index/alerts/endpoints';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['json', 'pretty'] as const;

const postgresUrl = z
  .string()
  .url('must be a URL like postgres://user@host:5432/database')
  .refine((value) => /^postgres(ql)?:\/\//.test(value), 'must start with postgres:// or postgresql://')
  .superRefine((value, context) => {
    const problem = pgbouncerParameterProblem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: `${problem} (add ?pgbouncer=true when the URL points at PgBouncer in transaction mode)` });
  });
const redisUrl = z
  .string()
  .url('must be a URL like redis://host:6379')
  .refine((value) => /^rediss?:\/\//.test(value), 'must start with redis:// or rediss://');
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be a whole number from ${min} to ${max}`);

/** Every environment variable the service reads, with its default. */
const envSchema = z.object({
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_REPLICA_URLS: z
    .string()
    .refine(
      (value) => value.split(',').every((url) => postgresUrl.safeParse(url.trim()).success),
      'must be a comma-separated list of URLs like postgres://user@replica:5432/database',
    )
    .optional(),
  DATABASE_CONNECT_TIMEOUT_MS: wholeNumber(100, 600_000).default('5000'),
  DATABASE_IDLE_TIMEOUT_MS: wholeNumber(1_000, 3_600_000).default('30000'),
  REPLICA_MAX_LAG_MS: wholeNumber(100, 600_000).default('2000'),
  REPLICA_CHECK_INTERVAL_MS: wholeNumber(50, 60_000).default('500'),
  DATA_DIR: z.string().default('./.data'),
  EMBEDDED: z.enum(['0', '1'], { errorMap: () => ({ message: 'must be 1 (use the embedded database on purpose) or 0' }) }).optional(),
  NODE_ENV: z.string().optional(),
  REDIS_URL: redisUrl.optional(),
  PORT: wholeNumber(0, 65_535).default('3000'),
  HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:\-[\]]+$/, 'must be a host name or an IP address')
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { errorMap: () => ({ message: `must be one of ${LOG_LEVELS.join(', ')}` }) }).default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS, { errorMap: () => ({ message: `must be one of ${LOG_FORMATS.join(', ')}` }) }).optional(),
  // The reasons never repeat the value: SMTP_URL holds a password.
  SMTP_URL: z
    .string()
    .transform((value, context) => {
      const parsed = parseSmtpUrl(value);
      if (parsed.ok) return parsed.smtp;
      context.addIssue({ code: 'custom', message: parsed.reason });
      return z.NEVER;
    })
    .optional(),
  SMTP_FROM: z
    .string()
    .transform((value, context) => {
      const parsed = parseMailFrom(value);
      if (parsed.ok) return parsed.from;
      context.addIssue({ code: 'custom', message: parsed.reason });
      return z.NEVER;
    })
    .optional(),
  COUNT_BUDGET_MS: wholeNumber(1, 60_000).default('100'),
  QUERY_TIMEOUT_MS: wholeNumber(100, 600_000).default('10000'),
  EXPORT_TIMEOUT_MS: wholeNumber(1_000, 86_400_000).default('1800000'),
  STATS_TIMEOUT_MS: wholeNumber(100, 600_000).default('60000'),
  SHUTDOWN_TIMEOUT_MS: wholeNumber(0, 600_000).default('10000'),
  SHUTDOWN_DELAY_MS: wholeNumber(0, 600_000).optional(),
  KEEP_ALIVE_TIMEOUT_MS: wholeNumber(1_000, 3_600_000).default('65000'),
  RETENTION_DAYS: wholeNumber(0, 3650).default('3'),
  EVENT_RETENTION_DAYS: wholeNumber(1, 365).default('14'),
  RDAP_BOOTSTRAP_URL: z
    .string()
    .refine((value) => value === 'shipped' || /^https?:\/\/[^\s]+$/.test(value), 'must be an http(s) URL of an IANA-format DNS bootstrap file, or shipped (the copy in the release, never fetched)')
    .default('https://data.iana.org/rdap/dns.json'),
  RDAP_LIMITS: z
    .string()
    .transform((value, context) => {
      try {
        parseRdapLimits(value);
        return value;
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message.replace(/^RDAP_LIMITS: /, '') });
        return z.NEVER;
      }
    })
    .optional(),
  REGISTRATION_CHECKS: z.enum(['on', 'off'], { errorMap: () => ({ message: 'must be on or off' }) }).default('on'),
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .transform((value, context) => {
      const parsed = parseAllowedHosts(value);
      if (!parsed.ok) {
        context.addIssue({ code: 'custom', message: parsed.reason });
        return z.NEVER;
      }
      return parsed.allowList;
    })
    .optional(),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .transform((value, context) => {
      const parsed = parseRetrySchedule(value);
      if (!parsed.ok) {
        context.addIssue({ code: 'custom', message: parsed.reason });
        return z.NEVER;
      }
      return parsed.schedule;
    })
    .optional(),
  WEBHOOK_DISABLE_AFTER_SECONDS: wholeNumber(1, 30 * 86_400).default(String(DISABLE_AFTER_MS / 1000)),
  WEBHOOK_CONCURRENCY: wholeNumber(1, 1_000).default(String(DEFAULT_CONCURRENCY)),
  WEBHOOK_TIMEOUT_MS: wholeNumber(1_000, 60_000).default(String(WEBHOOK_TIMEOUT_MS)),
  WEBHOOK_CONNECT_TIMEOUT_MS: wholeNumber(100, 60_000).default(String(WEBHOOK_CONNECT_TIMEOUT_MS)),
  WEBHOOK_RESPONSE_TIMEOUT_MS: wholeNumber(100, 60_000).default(String(WEBHOOK_RESPONSE_TIMEOUT_MS)),
  SOURCES_FILE: z.string().optional(),
  WORKERS: wholeNumber(1, 64).default('1'),
  PUBLIC_URL: z
    .string()
    .url('must be a URL like https://api.example.com')
    .refine((value) => /^https?:\/\/[^/]+\/?$/.test(value), 'must be http:// or https:// and a host, with no path')
    .optional(),
  ADMIN_PORT: wholeNumber(0, 65_535).optional(),
  ADMIN_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:\-[\]]+$/, 'must be a host name or an IP address')
    .default('127.0.0.1'),
  SIGNUP: z.enum(['open', 'closed'], { errorMap: () => ({ message: 'must be open or closed' }) }).default('closed'),
  TRUST_PROXY: z
    .string()
    .transform((value, context) => {
      const trust = parseTrustProxy(value);
      if (trust === undefined) {
        context.addIssue({ code: 'custom', message: 'must be a number of proxies (like 1) or a comma-separated list of addresses and CIDRs (like 10.0.0.0/8, loopback)' });
        return z.NEVER;
      }
      return trust;
    })
    .optional(),
});

/**
 * Which proxies' X-Forwarded-For Express believes (its `trust proxy` setting): none, the nearest
 * `n` hops, or the proxies at these addresses, CIDRs or named ranges. Never "all": anyone could
 * then choose the address the limits and the audit log see.
 */
export type TrustProxy = false | number | readonly string[];

/** Express's names for address ranges (proxy-addr's). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `value` as a TrustProxy; undefined when it is neither a hop count nor a list of addresses. */
function parseTrustProxy(value: string): TrustProxy | undefined {
  if (/^\d+$/.test(value)) return Number(value) <= 32 ? Number(value) : undefined;
  const entries = value.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    if (NAMED_RANGES.has(entry)) return true;
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return false;
    return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  });
  return valid ? entries : undefined;
}

/** The validated configuration of a process. */
export interface Config {
  /** PostgreSQL URL; undefined means the embedded PGlite database in `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * Streaming replicas of that PostgreSQL that the API reads from (searches, counts, lookups,
   * key checks, stats); everything else stays on the primary. Empty without replicas.
   */
  replicaUrls: string[];
  /** A replica further behind than this is left out of reads until it catches up. */
  replicaMaxLagMs: number;
  /** Longest a new PostgreSQL connection may take to open before the attempt fails. */
  databaseConnectTimeoutMs: number;
  /** An unused PostgreSQL connection is closed after this long (a pooler's PAUSE waits for them). */
  databaseIdleTimeoutMs: number;
  /** How often the API checks each replica's health and lag. */
  replicaCheckIntervalMs: number;
  dataDir: string;
  /**
   * EMBEDDED=1: the embedded database is wanted though the environment looks like production
   * (see checkDatabaseChoice).
   */
  embeddedOnPurpose: boolean;
  /** NODE_ENV as set; `production` says the process is meant for production. */
  nodeEnv: string | undefined;
  /** Redis URL for the shared rate limiter; undefined means the in-process limiter. */
  redisUrl: string | undefined;
  port: number;
  /** 127.0.0.1 on the embedded default (a laptop), 0.0.0.0 with PostgreSQL (behind a balancer). */
  host: string;
  logLevel: (typeof LOG_LEVELS)[number];
  /**
   * LOG_FORMAT: `json` (one JSON object a line) or `pretty` (pino-pretty, for people). Unset:
   * pretty when stderr is a terminal, JSON otherwise (a file, a pipe, a log collector).
   */
  logFormat: (typeof LOG_FORMATS)[number] | undefined;
  /** Where mail goes (SMTP_URL) and whom it is from (SMTP_FROM); undefined without SMTP_URL: no mail is sent. */
  mail: { smtp: SmtpSettings; from: string } | undefined;
  /** Time budget of an exact count before `total` falls back to the planner's estimate. */
  countBudgetMs: number;
  /** Longest a search query may run before it is cancelled (503 query_failed). */
  queryTimeoutMs: number;
  /** Longest one export may stream, its snapshot's statements included, before it is cancelled. */
  exportTimeoutMs: number;
  /** Longest one measurement of the stats may take; a request waits for it only until its own deadline. */
  statsTimeoutMs: number;
  /** Longest a graceful shutdown waits for in-flight requests. */
  shutdownTimeoutMs: number;
  /**
   * How long after SIGTERM the listener stays open with /readyz failing, so a load balancer
   * stops sending traffic before connections close: 5 s with PostgreSQL (behind a balancer),
   * 0 on the embedded default (a laptop has none).
   */
  shutdownDelayMs: number;
  /** How long an idle keep-alive connection stays open: above a load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** Days after its end time that a listing is purged. */
  retentionDays: number;
  /** Days the change feed keeps its events (whole UTC days are dropped). */
  eventRetentionDays: number;
  /**
   * Registration checks of watched names by RDAP: where the IANA bootstrap file is fetched
   * (RDAP_BOOTSTRAP_URL; `shipped` uses the release's copy only), the per-server limits
   * (RDAP_LIMITS), and whether the worker runs them (REGISTRATION_CHECKS).
   */
  rdap: { bootstrapUrl: string | null; limits: string | undefined; checks: boolean };
  /** Hosts and ranges a webhook may reach though the address rules refuse them (WEBHOOK_ALLOWED_HOSTS). */
  webhookAllowList: AllowList;
  /** Seconds before each attempt of a webhook message, the first included (WEBHOOK_RETRY_SCHEDULE). */
  webhookRetrySchedule: readonly number[];
  /** A webhook whose every attempt has failed this long is disabled. */
  webhookDisableAfterMs: number;
  /** Webhook requests a sender has in flight at once, each to a different endpoint (WEBHOOK_CONCURRENCY). */
  webhookConcurrency: number;
  /**
   * A webhook attempt's limits: the whole attempt (WEBHOOK_TIMEOUT_MS), the connection with its
   * TLS handshake (WEBHOOK_CONNECT_TIMEOUT_MS), and from connected to the answer's headers
   * (WEBHOOK_RESPONSE_TIMEOUT_MS), each of the last two at most the first.
   */
  webhookTimeouts: { totalMs: number; connectMs: number; responseMs: number };
  /** A JSON file of marketplaces replacing the built-in five. */
  sourcesFile: string | undefined;
  /** API processes `serve` runs on this machine, sharing its port (commands/serve-workers.ts). */
  workers: number;
  /**
   * Where people reach this service, without a trailing slash: the dashboard's links are built
   * from it, and its cookies are Secure when it is https. Defaults to the address `serve` listens on.
   */
  publicUrl: string;
  /**
   * True when PUBLIC_URL is unset and HOST is a wildcard address (0.0.0.0, ::): links then use
   * 127.0.0.1, which works only on this machine, so `serve` and `accounts` warn.
   */
  publicUrlGuessed: boolean;
  /** PUBLIC_URL as configured, without a trailing slash; undefined when unset (publicUrl is then a default). */
  configuredPublicUrl: string | undefined;
  /** Whether anyone may create a dashboard account (`SIGNUP=open`), or only the operator. */
  signupOpen: boolean;
  /** Whose X-Forwarded-For decides a request's client address (TRUST_PROXY); false: nobody's. */
  trustProxy: TrustProxy;
  /**
   * The admin listener (probes, /metrics, /health) of `serve` and `sync`; off when ADMIN_PORT
   * is unset. On loopback by default: metrics and health are for the operator's network only.
   */
  admin: { host: string; port: number } | undefined;
}

/** A configuration error: one line naming the variable, never its value (it may hold a password). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * What `serve` needs on top of a valid environment: more than one worker shares PostgreSQL
 * and Redis. Checked by `serve` only, so that other commands run with the same environment.
 */
export function checkWorkers(config: Config): Config {
  if (config.workers > 1 && config.databaseUrl === undefined) {
    throw new ConfigError('invalid environment variable WORKERS: more than 1 needs DATABASE_URL (the embedded database serves one process)');
  }
  if (config.workers > 1 && config.redisUrl === undefined) {
    throw new ConfigError('invalid environment variable WORKERS: more than 1 needs REDIS_URL (an in-process rate limiter would count each worker alone)');
  }
  return config;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '::0']);

/** Whether a listener on `host` is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === 'localhost') return true;
  return isIP(bare) !== 0 && ipaddr.process(bare).range() === 'loopback';
}

/**
 * Which commands a check applies to: `serve` and `sync` are the processes an operator deploys,
 * so every sign of production counts; the one-shot commands (keys, accounts, migrate, import...)
 * are also run on laptops with the variables of a shell, so only NODE_ENV=production counts.
 */
export type DatabaseChoiceScope = 'service' | 'one-shot';

/**
 * What says the process is meant for production though DATABASE_URL is unset (misspelt, or
 * missing from the unit's environment file): each item names the variable as set (never a URL).
 */
function productionSigns(config: Config, scope: DatabaseChoiceScope): string[] {
  const signs: string[] = [];
  if (scope === 'service') {
    if (config.redisUrl !== undefined) signs.push('REDIS_URL');
    if (config.workers > 1) signs.push(`WORKERS=${config.workers}`);
    if (!isLoopbackHost(config.host)) signs.push(`HOST=${config.host}`);
  }
  if (config.nodeEnv === 'production') signs.push('NODE_ENV=production');
  return signs;
}

/**
 * Refuses to open the embedded database for a process that is plainly meant for production:
 * without it, a misspelt DATABASE_URL starts a fresh PGlite with demo data and a live demo key,
 * and reports ready. EMBEDDED=1 is the way to want the embedded database anyway.
 */
export function checkDatabaseChoice(config: Config, scope: DatabaseChoiceScope): Config {
  if (config.databaseUrl !== undefined || config.embeddedOnPurpose) return config;
  const signs = productionSigns(config, scope);
  if (signs.length === 0) return config;
  const named = signs.length === 1 ? `${signs[0]!} is` : `${signs.slice(0, -1).join(', ')} and ${signs.at(-1)!} are`;
  throw new ConfigError(
    `invalid environment variable DATABASE_URL: not set, though ${named} set for production; set DATABASE_URL to the PostgreSQL URL, or EMBEDDED=1 to use the embedded database in ${config.dataDir} on purpose`,
  );
}

/** The one line `serve` and `accounts` write on stderr when the links were built from a wildcard HOST. */
export function publicUrlWarning(config: Config): string | undefined {
  if (!config.publicUrlGuessed) return undefined;
  return `domain-index: warning: PUBLIC_URL is not set and HOST is ${config.host}, so dashboard links use ${config.publicUrl}, which works only on this machine; set PUBLIC_URL to the address people use\n`;
}

/** Reads and validates the environment once; an empty value counts as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(envSchema.shape)
      .map((name) => [name, env[name]] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = envSchema.safeParse(present);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(`invalid environment variable ${name}: ${issue?.message ?? 'invalid value'}`);
  }
  const e = result.data;
  const host = e.HOST ?? (e.DATABASE_URL === undefined ? '127.0.0.1' : '0.0.0.0');
  if (e.SMTP_URL !== undefined && e.SMTP_FROM === undefined) {
    throw new ConfigError('invalid environment variable SMTP_FROM: must be set when SMTP_URL is (the address mail is sent from)');
  }
  if (e.EMBEDDED === '1' && e.DATABASE_URL !== undefined) {
    throw new ConfigError('invalid environment variable EMBEDDED: 1 asks for the embedded database, but DATABASE_URL is set; unset one of them');
  }
  if (e.DATABASE_REPLICA_URLS !== undefined && e.DATABASE_URL === undefined) {
    throw new ConfigError('invalid environment variable DATABASE_REPLICA_URLS: replicas need DATABASE_URL, their primary (the embedded database has none)');
  }
  for (const name of ['WEBHOOK_CONNECT_TIMEOUT_MS', 'WEBHOOK_RESPONSE_TIMEOUT_MS'] as const) {
    if (e[name] > e.WEBHOOK_TIMEOUT_MS) throw new ConfigError(`invalid environment variable ${name}: must be at most WEBHOOK_TIMEOUT_MS (${e.WEBHOOK_TIMEOUT_MS}), the whole attempt's limit`);
  }
  // A link to a wildcard address leads nowhere; loopback at least works on this machine.
  const wildcard = WILDCARD_HOSTS.has(host);
  const linkHost = wildcard ? '127.0.0.1' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    databaseUrl: e.DATABASE_URL,
    replicaUrls: e.DATABASE_REPLICA_URLS === undefined ? [] : e.DATABASE_REPLICA_URLS.split(',').map((url) => url.trim()),
    replicaMaxLagMs: e.REPLICA_MAX_LAG_MS,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    databaseIdleTimeoutMs: e.DATABASE_IDLE_TIMEOUT_MS,
    replicaCheckIntervalMs: e.REPLICA_CHECK_INTERVAL_MS,
    dataDir: e.DATA_DIR,
    embeddedOnPurpose: e.EMBEDDED === '1',
    nodeEnv: e.NODE_ENV,
    redisUrl: e.REDIS_URL,
    port: e.PORT,
    host,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    mail: e.SMTP_URL === undefined || e.SMTP_FROM === undefined ? undefined : { smtp: e.SMTP_URL, from: e.SMTP_FROM },
    countBudgetMs: e.COUNT_BUDGET_MS,
    queryTimeoutMs: e.QUERY_TIMEOUT_MS,
    exportTimeoutMs: e.EXPORT_TIMEOUT_MS,
    statsTimeoutMs: e.STATS_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS ?? (e.DATABASE_URL === undefined ? 0 : 5_000),
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    retentionDays: e.RETENTION_DAYS,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    rdap: { bootstrapUrl: e.RDAP_BOOTSTRAP_URL === 'shipped' ? null : e.RDAP_BOOTSTRAP_URL, limits: e.RDAP_LIMITS, checks: e.REGISTRATION_CHECKS === 'on' },
    webhookAllowList: e.WEBHOOK_ALLOWED_HOSTS ?? EMPTY_ALLOW_LIST,
    webhookRetrySchedule: e.WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_RETRY_SCHEDULE,
    webhookDisableAfterMs: e.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
    webhookConcurrency: e.WEBHOOK_CONCURRENCY,
    webhookTimeouts: { totalMs: e.WEBHOOK_TIMEOUT_MS, connectMs: e.WEBHOOK_CONNECT_TIMEOUT_MS, responseMs: e.WEBHOOK_RESPONSE_TIMEOUT_MS },
    sourcesFile: e.SOURCES_FILE,
    workers: e.WORKERS,
    publicUrl: (e.PUBLIC_URL ?? `http://${linkHost}:${e.PORT}`).replace(/\/$/, ''),
    publicUrlGuessed: e.PUBLIC_URL === undefined && wildcard,
    configuredPublicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
    signupOpen: e.SIGNUP === 'open',
    trustProxy: e.TRUST_PROXY ?? false,
    admin: e.ADMIN_PORT === undefined ? undefined : { host: e.ADMIN_HOST, port: e.ADMIN_PORT },
  };
}
