import { classifyDatabaseFailure } from '@domain-index/db/failures';
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { failureLine } from './failure-line';

export type { Logger };

/** How log lines are written: one JSON object each, or pino-pretty's lines for people. */
export type LogFormat = 'json' | 'pretty';

/**
 * LOG_FORMAT when set; otherwise pretty when the logs (stderr) go to a terminal, where a person
 * reads them, and JSON everywhere else: a file, a pipe, a container's log collector.
 */
export function logFormat(configured: LogFormat | undefined, stderrIsTerminal = process.stderr.isTTY): LogFormat {
  return configured ?? (stderrIsTerminal ? 'pretty' : 'json');
}

/**
 * Where the logs go: stderr, as JSON lines or through pino-pretty (colours, local times, one
 * line a message with its fields under it). Redaction happens before either.
 */
export function logDestination(format: LogFormat): pino.DestinationStream {
  if (format === 'json') return pino.destination({ dest: 2, sync: false });
  return pretty({ destination: 2, colorize: process.stderr.isTTY, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' });
}

/**
 * Structured logs (JSON lines unless `destination` says otherwise). Authorization headers and
 * anything key-like are censored wherever they appear, so a key never reaches a log line even
 * when a caller puts it in the wrong place. Errors carry no statement text (errorForLog), and
 * identical lines within 10 s are counted rather than repeated (countRepeats).
 */
export function createLogger(level: string, destination: pino.DestinationStream = logDestination('json')): Logger {
  const repeats = new Map<string, Repeated>();
  const logger = pino(
    {
      level,
      base: { service: 'domain-index' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: errorForLog },
      hooks: { logMethod: countRepeats(repeats) },
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'authorization',
          '*.authorization',
          'apiKey',
          '*.apiKey',
          'key',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
  repeatsOf.set(logger, repeats);
  return logger;
}

/** The logger of a command, as LOG_LEVEL and LOG_FORMAT configure it. */
export function loggerFor(config: { logLevel: string; logFormat: LogFormat | undefined }): Logger {
  return createLogger(config.logLevel, logDestination(logFormat(config.logFormat)));
}

/** Drizzle's message of a failed statement: the statement's text, then its parameter values. */
const STATEMENT_TEXT = /^Failed query: /;

/** An error as pino's serializer writes it: the fields read here, and whatever else it has. */
interface SerializedError {
  type: string;
  message: string;
  stack: string;
  cause?: unknown;
  [field: string]: unknown;
}

/** The serialized error without statement text: Drizzle's wrapper says only that a statement failed. */
function scrubSerialized(serialized: SerializedError): SerializedError {
  // Drizzle's error also carries the statement and its values as fields of their own
  const { params: _params, query: _query, ...rest } = serialized;
  if (!STATEMENT_TEXT.test(serialized.message)) {
    const cause = serialized.cause;
    return typeof cause === 'object' && cause !== null && 'message' in cause ? { ...rest, cause: scrubSerialized(cause as SerializedError) } : { ...rest };
  }
  const message = 'a database statement failed';
  const frames = serialized.stack.indexOf('\n    at ');
  const scrubbed: SerializedError = { ...rest, message, stack: `${serialized.type}: ${message}${frames < 0 ? '' : serialized.stack.slice(frames)}` };
  const cause = serialized.cause;
  if (typeof cause === 'object' && cause !== null && 'message' in cause) scrubbed.cause = scrubSerialized(cause as SerializedError);
  return scrubbed;
}

/**
 * Errors as pino writes them, never with a statement's text or parameter values (a column list
 * of 4 KB, the customer's query values, a password hash). A database that is unavailable (gone,
 * out of time, a statement past its deadline) is expected in operation: its error is its one
 * failure line, without a stack. Anything else keeps its stack and causes: it is a defect.
 */
function errorForLog(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  if (classifyDatabaseFailure(error).kind === 'unavailable') return { type: error.name, message: failureLine(error) };
  return scrubSerialized(pino.stdSerializers.errWithCause(error));
}

/** pino's number for warn: lines at this level and above are counted when repeated. */
const WARN = 40;

/** How long identical lines are counted instead of written. */
export const REPEAT_WINDOW_MS = 10_000;

/** Fields that differ between lines that say the same thing: left out when lines are compared. */
const PER_REQUEST_FIELDS = new Set(['requestId', 'time']);

interface Repeated {
  count: number;
  timer: NodeJS.Timeout;
  write: (count: number) => void;
}

/** The lines being counted, by what they say; one set per logger tree (createLogger). */
const repeatsOf = new WeakMap<Logger, Map<string, Repeated>>();

/** What a line says, for comparing: its level, message, bindings and fields but the per-request ones. */
function lineKey(level: number, message: string, fields: Record<string, unknown>, bindings: Record<string, unknown>): string {
  const kept = Object.entries({ ...bindings, ...fields })
    .filter(([name]) => !PER_REQUEST_FIELDS.has(name))
    .map(([name, value]) => [name, value instanceof Error ? `${value.name}: ${failureLine(value)}` : value] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([level, message, kept]);
}

/**
 * pino's logMethod hook: the first of identical warnings or errors (lineKey) is written; the ones that follow
 * within REPEAT_WINDOW_MS are counted, and when the window closes one line says how many there
 * were ("... (repeated N times in 10 s)"). An outage that refuses every request thus writes two
 * lines per kind of refusal every 10 s, not one per request.
 */
function countRepeats(repeats: Map<string, Repeated>) {
  return function logMethod(this: Logger, args: Parameters<pino.LogFn>, method: pino.LogFn, level: number): void {
    // info and below are the access log and progress lines, each distinct by design
    if (level < WARN) {
      method.apply(this, args);
      return;
    }
    const [first, second] = args as unknown[];
    const fields = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
    const message = typeof first === 'string' ? first : typeof second === 'string' ? second : '';
    let key: string;
    try {
      key = lineKey(level, message, fields, this.bindings());
    } catch {
      // a field that cannot be compared (a cycle): written as it is
      method.apply(this, args);
      return;
    }
    const seen = repeats.get(key);
    if (seen !== undefined) {
      seen.count += 1;
      return;
    }
    const summaryFields = Object.fromEntries(Object.entries(fields).filter(([name]) => !PER_REQUEST_FIELDS.has(name)));
    const write = (count: number) => method.apply(this, [{ ...summaryFields, repeated: count }, `${message} (repeated ${count} times in ${REPEAT_WINDOW_MS / 1000} s)`]);
    const timer = setTimeout(() => {
      repeats.delete(key);
      if (entry.count > 0) write(entry.count);
    }, REPEAT_WINDOW_MS);
    timer.unref();
    const entry: Repeated = { count: 0, timer, write };
    repeats.set(key, entry);
    method.apply(this, args);
  };
}

/** Writes the counts of repeated lines still open (before a process exits, their windows never close). */
export function flushRepeats(logger: Logger): void {
  const repeats = repeatsOf.get(logger);
  if (repeats === undefined) return;
  for (const [key, entry] of repeats) {
    clearTimeout(entry.timer);
    repeats.delete(key);
    if (entry.count > 0) entry.write(entry.count);
  }
}
