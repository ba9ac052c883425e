import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const postgresUrl = z
  .string()
  .url('must be a URL like postgres://user@host:5432/database')
  .refine((value) => /^postgres(ql)?:\/\//.test(value), 'must start with postgres:// or postgresql://');
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
  DATA_DIR: z.string().default('./.data'),
  REDIS_URL: redisUrl.optional(),
  PORT: wholeNumber(0, 65_535).default('3000'),
  HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:\-[\]]+$/, 'must be a host name or an IP address')
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { errorMap: () => ({ message: `must be one of ${LOG_LEVELS.join(', ')}` }) }).default('info'),
  COUNT_BUDGET_MS: wholeNumber(1, 60_000).default('100'),
  QUERY_TIMEOUT_MS: wholeNumber(100, 600_000).default('10000'),
  SHUTDOWN_TIMEOUT_MS: wholeNumber(0, 600_000).default('10000'),
  KEEP_ALIVE_TIMEOUT_MS: wholeNumber(1_000, 3_600_000).default('65000'),
  RETENTION_DAYS: wholeNumber(0, 3650).default('3'),
  SOURCES_FILE: z.string().optional(),
  WORKERS: wholeNumber(1, 64).default('1'),
});

/** The validated configuration of a process. */
export interface Config {
  /** PostgreSQL URL; undefined means the embedded PGlite database in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Redis URL for the shared rate limiter; undefined means the in-process limiter. */
  redisUrl: string | undefined;
  port: number;
  /** 127.0.0.1 on the embedded default (a laptop), 0.0.0.0 with PostgreSQL (behind a balancer). */
  host: string;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Time budget of an exact count before `total` falls back to the planner's estimate. */
  countBudgetMs: number;
  /** Longest a search query may run before it is cancelled (503 query_failed). */
  queryTimeoutMs: number;
  /** Longest a graceful shutdown waits for in-flight requests. */
  shutdownTimeoutMs: number;
  /** How long an idle keep-alive connection stays open: above a load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** Days after its end time that a listing is purged. */
  retentionDays: number;
  /** A JSON file of marketplaces replacing the built-in five. */
  sourcesFile: string | undefined;
  /** API processes `serve` runs on this machine, sharing its port (commands/serve-workers.ts). */
  workers: number;
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
  return {
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    port: e.PORT,
    host: e.HOST ?? (e.DATABASE_URL === undefined ? '127.0.0.1' : '0.0.0.0'),
    logLevel: e.LOG_LEVEL,
    countBudgetMs: e.COUNT_BUDGET_MS,
    queryTimeoutMs: e.QUERY_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    retentionDays: e.RETENTION_DAYS,
    sourcesFile: e.SOURCES_FILE,
    workers: e.WORKERS,
  };
}
