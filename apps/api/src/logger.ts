import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

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
 * when a caller puts it in the wrong place.
 */
export function createLogger(level: string, destination: pino.DestinationStream = logDestination('json')): Logger {
  return pino(
    {
      level,
      base: { service: 'domain-index' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: withoutStatementValues },
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
}

/** The logger of a command, as LOG_LEVEL and LOG_FORMAT configure it. */
export function loggerFor(config: { logLevel: string; logFormat: LogFormat | undefined }): Logger {
  return createLogger(config.logLevel, logDestination(logFormat(config.logFormat)));
}

/** Where Drizzle's error message lists a failed statement's parameters: request and feed values. */
const PARAMS = '\nparams: ';

/** The text up to the parameters, and the stack frames after them: the values are left out. */
function scrub(text: string): string {
  const start = text.indexOf(PARAMS);
  if (start < 0) return text;
  const frames = text.indexOf('\n    at ', start);
  return `${text.slice(0, start)}${PARAMS}[not logged]${frames < 0 ? '' : text.slice(frames)}`;
}

/** An error as pino's serializer writes it: the fields read here, and whatever else it has. */
interface SerializedError {
  message: string;
  stack: string;
  cause?: unknown;
  [field: string]: unknown;
}

function scrubSerialized(serialized: SerializedError): SerializedError {
  // Drizzle's error also carries the values as a field of its own
  const { params: _params, ...rest } = serialized;
  const scrubbed: SerializedError = { ...rest, message: scrub(serialized.message), stack: scrub(serialized.stack) };
  const cause = serialized.cause;
  if (typeof cause === 'object' && cause !== null && 'message' in cause) scrubbed.cause = scrubSerialized(cause as SerializedError);
  return scrubbed;
}

/**
 * Errors as pino writes them, each cause apart, but without the parameter values Drizzle puts in
 * a failed statement's message: they are the customer's query values, or a password hash.
 */
function withoutStatementValues(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return scrubSerialized(pino.stdSerializers.errWithCause(error));
}
