import { pipeline, Transform } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import type { InfoRecord, Options as CsvOptions } from 'csv-parse';
import { FeedSyntaxError, type FeedItem } from '../feed-item';
import { decodeHtmlEntities, LONGEST_ENTITY } from './html-entities';

/** How a delimited text file (CSV, semicolon- or tab-separated) is laid out. */
export interface DelimitedLayout {
  delimiter: string;
  /** The quote character; null when fields are never quoted. */
  quote: string | null;
  /** The first row (after skipLines) names the columns. */
  header: boolean;
  /** Without a header: the column names, null for a column to ignore. */
  columns?: readonly (string | null)[];
  /** Lines before the header or the first record. */
  skipLines: number;
  encoding: 'utf-8' | 'iso-8859-1' | 'windows-1252';
  /** Decode HTML character references (`&#163;`) before the fields are split. */
  htmlEntities: boolean;
  /** Called with the header's (trimmed) names before the first record is handed out. */
  onHeader?: (columns: readonly string[]) => void;
}

/** The layout of the feed format's own CSV: comma-separated, a header, UTF-8. */
export const CSV_LAYOUT: DelimitedLayout = {
  delimiter: ',',
  quote: '"',
  header: true,
  skipLines: 0,
  encoding: 'utf-8',
  htmlEntities: false,
};

/** Line breaks the way csv-parse counts them inside a quoted field: every CR and every LF. */
const LINE_BREAK_CHARS = /[\r\n]/g;
const CRLF = /\r\n/g;
const LEADING_BLANK_LINES = /^[\r\n]+/;
const TRAILING_DELIMITER = /(?:\r\n|\r|\n)$/;
const MAX_RECORD = 1 << 20;
const SYNTAX_MESSAGES: Partial<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'unclosed quote: the record starting here runs to the end of the input',
  CSV_MAX_RECORD_SIZE: 'record larger than 1 MiB starting here (an unclosed quote?)',
};

/** Bytes to text in a single-byte encoding: each byte is one character, so chunks decode alone. */
function decoder(encoding: DelimitedLayout['encoding']): Transform | null {
  if (encoding === 'utf-8') return null;
  if (encoding === 'iso-8859-1') {
    return new Transform({ decodeStrings: true, transform: (chunk: Buffer, _e, done) => done(null, chunk.toString('latin1')) });
  }
  const text = new TextDecoder('windows-1252');
  return new Transform({
    decodeStrings: true,
    transform: (chunk: Buffer, _e, done) => done(null, text.decode(chunk, { stream: true })),
    flush: (done) => done(null, text.decode()),
  });
}

/**
 * Decodes HTML references in streamed text, holding back a tail that may be the start of one.
 * Bytes (UTF-8, with no decoder before it) are decoded by a streaming decoder: a character
 * whose bytes are split across two chunks would otherwise turn into two replacement marks.
 */
function entityDecoder(): Transform {
  let held = '';
  const utf8 = new TextDecoder('utf-8');
  return new Transform({
    decodeStrings: false,
    transform(chunk: Buffer | string, _e, done) {
      const text = held + (typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true }));
      const amp = text.lastIndexOf('&');
      const cut = amp >= 0 && text.length - amp <= LONGEST_ENTITY ? amp : text.length;
      held = text.slice(cut);
      done(null, decodeHtmlEntities(text.slice(0, cut)));
    },
    flush(done) {
      done(null, decodeHtmlEntities(held + utf8.decode()));
    },
  });
}

/**
 * Streams the records of a delimited text file. With a header, every record must have as
 * many fields as the header (else it is an error item); with a column list, fields past the
 * list must be empty (a trailing delimiter) and missing trailing fields are absent. Every
 * value is a string. Line numbers are 1-based physical lines of the whole file (for a record
 * spanning several lines, its first line). The input is destroyed when the iteration ends.
 *
 * @throws {FeedSyntaxError} when the file is broken beyond one record (an unclosed quote).
 */
export async function* readDelimited(
  input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>,
  layout: DelimitedLayout,
): AsyncGenerator<FeedItem> {
  // csv-parse counts a CRLF inside a quoted field as two lines; this is how far it has run ahead
  let overcount = 0;
  let names: (string | null)[] | undefined = layout.columns === undefined ? undefined : [...layout.columns];
  let headerPending = layout.header;
  /** Last physical line of the last record read, so a fatal error can name where its record starts. */
  let lastLine = layout.skipLines;
  const toItem = (parsed: unknown, context: InfoRecord): FeedItem | null => {
    const { record, raw } = parsed as { record: string[]; raw: string };
    // context.lines is the record's last line: step back over the breaks inside its quoted fields
    const body = raw.replace(LEADING_BLANK_LINES, '').replace(TRAILING_DELIMITER, '');
    const inner = body.match(LINE_BREAK_CHARS)?.length ?? 0;
    const line = context.lines - inner - overcount;
    overcount += body.match(CRLF)?.length ?? 0;
    lastLine = context.lines - overcount;
    if (names === undefined) {
      names = record.map((name) => name.trim());
      return null;
    }
    const expected = names.length;
    const extra = record.slice(expected);
    if (layout.header ? record.length !== expected : extra.some((value) => value.trim() !== '')) {
      // Only the file's last record can lack its line break: short and unterminated, it was cut
      // off (a truncated download or file), and every record after the cut is missing. As one
      // bad row it would not reject the batch, and the index would lose them all.
      if (record.length < expected && !TRAILING_DELIMITER.test(raw)) {
        throw new FeedSyntaxError(line, 'the feed ends in the middle of a record: it was cut off (a truncated download or file)');
      }
      return { line, error: `wrong column count: expected ${expected}, got ${record.length}` };
    }
    const item: Record<string, unknown> = {};
    for (let i = 0; i < Math.min(expected, record.length); i++) {
      const name = names[i];
      if (name !== null && name !== undefined) item[name] = record[i];
    }
    return { line, record: item };
  };
  const options: CsvOptions = {
    bom: layout.encoding === 'utf-8',
    delimiter: layout.delimiter,
    quote: layout.quote ?? false,
    from_line: layout.skipLines + 1,
    raw: true,
    relax_column_count: true,
    // a stray quote inside an unquoted field is kept as a character; the field check catches it
    relax_quotes: true,
    skip_empty_lines: true,
    // an unclosed quote would otherwise buffer the rest of the file
    max_record_size: MAX_RECORD,
    // with raw, csv-parse hands on_record {record, raw}; its items are ours, not string arrays
    on_record: toItem as unknown as NonNullable<CsvOptions['on_record']>,
  };
  const parser = parseCsv(options);
  const stages = [decoder(layout.encoding), layout.htmlEntities ? entityDecoder() : null].filter((stage) => stage !== null);
  // errors of the source reach the consumer through the parser, which pipeline destroys with them
  pipeline([input, ...stages, parser] as unknown as [NodeJS.ReadableStream, NodeJS.WritableStream], () => undefined);
  const announce = () => {
    if (!headerPending) return;
    headerPending = false;
    layout.onHeader?.((names ?? []).filter((name) => name !== null));
  };
  try {
    for await (const item of parser as AsyncIterable<FeedItem>) {
      announce();
      yield item;
    }
    announce();
  } catch (error) {
    if (error instanceof FeedSyntaxError) throw error;
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && (code.startsWith('CSV_') || code === 'INVALID_OPENING_QUOTE')) {
      const message = SYNTAX_MESSAGES[code] ?? (error as Error).message;
      throw new FeedSyntaxError(lastLine + 1, message, { cause: error });
    }
    throw error;
  } finally {
    parser.destroy();
  }
}
