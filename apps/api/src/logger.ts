import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Authorization headers and anything key-like are censored wherever
 * they appear, so a key never reaches a log line even when a caller puts it in the wrong place.
 */
export function createLogger(
  level: string,
  destination: pino.DestinationStream = pino.destination({ dest: 2, sync: false }),
): Logger {
  return pino(
    {
      level,
      base: { service: 'domain-index' },
      timestamp: pino.stdTimeFunctions.isoTime,
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
