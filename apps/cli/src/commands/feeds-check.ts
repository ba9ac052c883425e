import { readFeed, SHIPPED_PROFILES, type SourceConfig } from '@domain-index/indexer';
import type { Config } from '@domain-index/config/config';
import { acquireFeed } from '@domain-index/worker/feeds/acquire-feed';
import { checkFeed, LISTED_ERRORS, type CheckResult } from '@domain-index/worker/feeds/check-feed';
import { openFeedInput, type OpenedFeed } from '@domain-index/worker/feeds/feed-input';
import { FeedFetchError } from '@domain-index/worker/feeds/fetch-error';
import { redact, secretsOf } from '@domain-index/worker/feeds/request';
import { unreadableFeedReason } from '@domain-index/worker/indexing/import-batch';
import { CliError } from '../cli-error';
import { loadSources } from '../sources';

export interface FeedsCheckOptions {
  profile?: string;
  json?: boolean;
  sample: number;
  /** US dollars per unit of other currencies, for a shipped profile's amounts. */
  rates: Record<string, number>;
}

/** How the file is to be read: a shipped profile, or the reading configuration of a configured source. */
function readerFor(name: string, sources: readonly SourceConfig[], rates: Record<string, number>): SourceConfig {
  const shipped = SHIPPED_PROFILES[name];
  if (shipped !== undefined) {
    return { id: name.slice(0, 32), name, everyMinutes: 1440, feed: '-', profile: shipped, profileName: name, ...(Object.keys(rates).length > 0 && { currencyRates: rates }) };
  }
  const source = sources.find((candidate) => candidate.id === name.toLowerCase());
  if (source === undefined) {
    throw new CliError(`unknown profile ${name}; shipped: ${Object.keys(SHIPPED_PROFILES).join(', ')}; or a configured source: ${sources.map((s) => s.id).join(', ')}`);
  }
  return Object.keys(rates).length > 0 ? { ...source, currencyRates: { ...source.currencyRates, ...rates } } : source;
}

const itemsOf = (opened: OpenedFeed) => ('records' in opened ? opened.records : readFeed(opened.input, opened.format));

function print(result: CheckResult, json: boolean): void {
  if (json) {
    const { good, bad, skipped, errors, rows } = result;
    process.stdout.write(`${JSON.stringify({ good, bad, skipped, errors, rows })}\n`);
    return;
  }
  const lines = [`good: ${result.good}`, `bad: ${result.bad}`];
  const reasons = Object.entries(result.skippedReasons).map(([reason, count]) => `${reason}: ${count}`);
  lines.push(`skipped: ${result.skipped}${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`);
  if (result.errors.length > 0) {
    lines.push(`bad records (the first ${LISTED_ERRORS}):`);
    for (const { record, reason } of result.errors) lines.push(`  ${record === null ? 'feed' : `record ${record}`}: ${reason}`);
  }
  lines.push(`rows (${result.rows.length} of ${result.good}):`);
  for (const row of result.rows) lines.push(`  ${JSON.stringify(row)}`);
  lines.push(result.acceptable ? 'an import would apply this feed' : 'an import would REJECT this feed and keep the previous batch');
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * `domain-index feeds check --profile NAME FILE|-` and `feeds check SOURCE`: reads a feed file
 * with a profile, or fetches a configured source's feed, through the rules an import applies,
 * and prints what it found; writes nothing, opens no database. Exit code 0 when an import
 * would apply the feed, 1 when it would reject it.
 */
export async function feedsCheckCommand(config: Config, target: string, options: FeedsCheckOptions): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  const now = new Date();
  let result: CheckResult;
  if (options.profile !== undefined) {
    const reader = readerFor(options.profile, sources, options.rates);
    let opened: OpenedFeed;
    try {
      opened = await openFeedInput(reader, target === '-' ? { stream: process.stdin } : { path: target }, { now });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') throw new CliError(`cannot read ${target}: no such file`);
      result = await checkFeed(failing(error), reader, options.sample);
      print(result, options.json === true);
      process.exitCode = 1;
      return;
    }
    try {
      result = await checkFeed(itemsOf(opened), reader, options.sample);
    } finally {
      await opened.close();
    }
  } else {
    const configured = sources.find((candidate) => candidate.id === target.toLowerCase());
    if (configured === undefined) {
      throw new CliError(`unknown source ${target}; configured: ${sources.map((s) => s.id).join(', ')} (a file needs --profile)`);
    }
    const source = Object.keys(options.rates).length > 0 ? { ...configured, currencyRates: { ...configured.currencyRates, ...options.rates } } : configured;
    result = await checkSource(source, options.sample, now);
  }
  print(result, options.json === true);
  if (!result.acceptable) process.exitCode = 1;
}

/** An item stream that fails at once: a feed that could not even be opened. */
function failing(error: unknown): AsyncIterable<never> {
  const reason = error instanceof Error ? error : new Error(String(error));
  return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(reason) }) };
}

async function checkSource(source: SourceConfig, sample: number, now: Date): Promise<CheckResult> {
  // an unset variable is reported by acquireFeed, by name
  const secrets = secretsOf(source);
  try {
    const feed = await acquireFeed(source);
    if (feed.unchanged !== undefined) throw new Error('unexpected 304 without validators');
    try {
      const opened = await openFeedInput(source, { path: feed.path }, { pagedRecords: feed.pagedRecords, now });
      try {
        return await checkFeed(itemsOf(opened), source, sample);
      } finally {
        await opened.close();
      }
    } finally {
      await feed.dispose();
    }
  } catch (error) {
    // an archive that cannot be opened is reported like a feed unreadable further in
    if (unreadableFeedReason(error) !== undefined) return checkFeed(failing(error), source, sample);
    if (!(error instanceof FeedFetchError)) throw error;
    return checkFeed(failing(new FeedFetchError(redact(error.message, secrets), error.retryable)), source, sample);
  }
}
