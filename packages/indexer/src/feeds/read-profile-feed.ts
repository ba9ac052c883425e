import type { FeedItem } from '../feed-item';
import { readFeed } from '../feed-row';
import { FeedFormatError } from './errors';
import { compileProfile, type MappingOptions, type RecordMapper } from './map-record';
import type { FeedContainer, FeedProfile } from './profile';
import { readDelimited } from './read-delimited';
import { readJsonRecords } from './read-json';

/** Columns named in a "missing column" reason, at most. */
const SHOWN_COLUMNS = 30;

/**
 * Streams a container's raw records (the marketplace's own field names). `onHeader` sees a
 * delimited file's header before its first record.
 */
export function readContainer(
  input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>,
  container: FeedContainer,
  onHeader?: (columns: readonly string[]) => void,
): AsyncGenerator<FeedItem> {
  switch (container.type) {
    case 'jsonl':
      return readFeed(input, 'jsonl');
    case 'json':
      return readJsonRecords(input, container.records);
    case 'delimited':
      return readDelimited(input, {
        delimiter: container.delimiter,
        quote: container.quote,
        header: container.header === true,
        ...(container.columns !== undefined && { columns: container.columns }),
        skipLines: container.skipLines,
        encoding: container.encoding,
        htmlEntities: container.htmlEntities,
        ...(onHeader !== undefined && { onHeader }),
      });
  }
}

/**
 * Maps raw records through a compiled profile: each becomes a record in the feed format's
 * field names, a bad row or a skipped row. Error items pass through.
 *
 * @throws {FeedFormatError} at the end, when a field the profile needs is in no record at all
 * (renamed?): every record would have been read without it.
 */
export async function* mapItems(items: AsyncIterable<FeedItem>, mapper: RecordMapper): AsyncGenerator<FeedItem> {
  const unseen = new Set(mapper.requiredFields);
  let records = 0;
  for await (const item of items) {
    if (!('record' in item)) {
      yield item;
      continue;
    }
    records += 1;
    if (unseen.size > 0) for (const name of unseen) if (Object.hasOwn(item.record, name)) unseen.delete(name);
    const mapped = mapper.map(item.record);
    if (mapped.ok === true) yield { line: item.line, record: mapped.record };
    else if (mapped.ok === false) yield { line: item.line, error: mapped.reason };
    else yield { line: item.line, skipped: mapped.reason };
  }
  if (records > 0 && unseen.size > 0) {
    const names = [...unseen].map((name) => JSON.stringify(name)).join(', ');
    throw new FeedFormatError(`${names} ${unseen.size === 1 ? 'is' : 'are'} in no record (renamed?); a field the feed may leave out is marked "optional" in the profile`);
  }
}

/**
 * Reads a feed through its profile: the container's records, mapped to the feed format's
 * fields. `container` overrides the profile's (a paginated feed's pages are spooled as JSONL).
 * A delimited file whose header lacks a column the profile needs is refused before any record.
 *
 * @throws {FeedFormatError} when the feed does not have the profile's shape.
 * @throws {FeedSyntaxError} when the feed is not readable as its container.
 */
export function readProfileFeed(
  input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>,
  profile: FeedProfile,
  options: MappingOptions & { container?: FeedContainer },
): AsyncGenerator<FeedItem> {
  const mapper = compileProfile(profile, options);
  const onHeader = (columns: readonly string[]) => {
    const missing = mapper.requiredFields.filter((name) => !columns.includes(name));
    if (missing.length === 0) return;
    const has = columns.slice(0, SHOWN_COLUMNS).join(', ') + (columns.length > SHOWN_COLUMNS ? ', ...' : '');
    throw new FeedFormatError(`the header has no column ${missing.map((name) => JSON.stringify(name)).join(', ')} (renamed?); it has: ${has}`);
  };
  return mapItems(readContainer(input, options.container ?? profile.container, onHeader), mapper);
}
