import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainIndex, type ExportParams } from '@domain-index/client';
import { CliError } from '../cli-error';

/** The variables the command needs: where the API is and a key to call it with. */
const REQUIRED = ['DOMAIN_INDEX_URL', 'DOMAIN_INDEX_API_KEY'] as const;

/** Options of `domain-index export`. */
export interface ExportOptions {
  format: 'csv' | 'jsonl';
  /** A search's query string (`status=all&tld=ai&max_price=500`): every filter and the sort. */
  query: string;
  /** A file to write, or `-` for stdout. */
  output: string;
}

/**
 * `domain-index export`: streams an export from the API at DOMAIN_INDEX_URL, with
 * DOMAIN_INDEX_API_KEY, into a file or stdout, with a progress line on a terminal. It calls the
 * API rather than reading the database: the same snapshot, order, bytes, costs and limits as a
 * customer's export, the request log records it, it works against any deployment (embedded or
 * not, replicas or not) from any machine, and it needs a key, not database credentials.
 */
export async function exportCommand(options: ExportOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const missing = REQUIRED.filter((name) => (env[name] ?? '') === '');
  if (missing.length > 0) {
    throw new CliError(`export needs ${missing.join(' and ')} in its environment: the API's address (e.g. http://127.0.0.1:3000) and an API key`);
  }
  const params: Record<string, string> = Object.fromEntries(new URLSearchParams(options.query));
  if ('format' in params) throw new CliError('give the format with --format, not in --query');
  const client = new DomainIndex({ apiKey: env.DOMAIN_INDEX_API_KEY, baseUrl: env.DOMAIN_INDEX_URL });
  let body;
  try {
    body = await client.domains.export({ ...(params as ExportParams), format: options.format });
  } catch (error) {
    throw new CliError(`the export was refused: ${error instanceof Error ? error.message : String(error)}`);
  }
  const toStdout = options.output === '-';
  const progress = process.stderr.isTTY ? new ProgressLine(options.format) : undefined;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      progress?.saw(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(body), counting, toStdout ? process.stdout : createWriteStream(options.output));
  } catch (error) {
    progress?.end();
    throw new CliError(`the export stopped part-way and ${toStdout ? 'the output' : options.output} is incomplete: ${error instanceof Error ? error.message : String(error)}`);
  }
  progress?.end();
  if (options.format === 'jsonl' && progress?.lastLineIsError === true) throw new CliError(`the export stopped part-way: ${toStdout ? 'the output' : options.output} ends with its error line and is incomplete`);
}

/** `exported 12,000 rows (8.1 MB)`, rewritten in place on stderr at most every 200 ms. */
class ProgressLine {
  private rows = 0;
  private bytes = 0;
  private shownAt = 0;
  private tail = '';
  lastLineIsError = false;

  constructor(private readonly format: 'csv' | 'jsonl') {}

  saw(chunk: Buffer): void {
    const text = chunk.toString('utf8');
    this.bytes += chunk.length;
    // rows by line ends (a CSV field with a line break in it counts twice: a progress figure)
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) this.rows += 1;
    this.tail = (this.tail + text).slice(-300);
    const now = Date.now();
    if (now - this.shownAt >= 200) {
      this.shownAt = now;
      this.show();
    }
  }

  end(): void {
    this.lastLineIsError = this.format === 'jsonl' && /\n?\{"error":[^\n]*\n$/.test(this.tail);
    this.show();
    process.stderr.write('\n');
  }

  private show(): void {
    const rows = this.format === 'csv' ? Math.max(0, this.rows - 1) : this.rows;
    process.stderr.write(`\rexported ${rows.toLocaleString('en')} rows (${(this.bytes / 1e6).toFixed(1)} MB)`);
  }
}
