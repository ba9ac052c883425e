/**
 * One item of a feed reader: a raw record, a record that could not be read as one (a bad
 * row), or a record left out on purpose (see the profiles' currency rule). `line` is where an
 * operator finds it: the physical line of a text file, the position in a JSON record array.
 */
export type FeedItem =
  | { line: number; record: Record<string, unknown> }
  | { line: number; error: string }
  | { line: number; skipped: string };

/**
 * The input is structurally broken past a single row (an unbalanced CSV quote, a record over
 * 1 MiB, invalid JSON): what follows cannot be read reliably, so the whole batch has to be
 * rejected. `unit` says what `line` counts; 0 is the file as a whole (corrupt compression).
 */
export class FeedSyntaxError extends Error {
  override readonly name = 'FeedSyntaxError';
  constructor(
    readonly line: number,
    message: string,
    options?: ErrorOptions & { unit?: 'line' | 'record' },
  ) {
    super(line > 0 ? `${options?.unit ?? 'line'} ${line}: ${message}` : message, options);
  }
}
