import { pipeline } from 'node:stream';
import { chainUnchecked } from 'stream-chain';
import { parser } from 'stream-json';
import { pick } from 'stream-json/filters/pick.js';
import { streamArray } from 'stream-json/streamers/stream-array.js';
import { FeedSyntaxError, type FeedItem } from '../feed-item';
import { FeedFormatError } from './errors';

/**
 * Streams the records of the array at `path` (dot-separated, `data` in `{"meta":..,"data":[..]}`;
 * empty for a top-level array) of a JSON document, one element at a time: the document is
 * parsed as a stream of tokens (stream-json), never held whole. `line` is the element's
 * position in the array, from 1; an element that is not an object is an error item.
 *
 * @throws {FeedSyntaxError} when the text is not JSON.
 * @throws {FeedFormatError} when the document has no array at `path`.
 */
export async function* readJsonRecords(input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>, path: string): AsyncGenerator<FeedItem> {
  let found = path === '';
  // One chain for all stages, tokens passed as function calls rather than through a stream per
  // stage; and packed values only, without the chunk tokens the assembler does not need:
  // together three times faster.
  const stages: unknown[] = [parser({ streamValues: false })];
  if (path !== '') {
    // a string filter is exact and prefix-aware (`data` is not `database`), and the fast kind
    stages.push(pick({ filter: path, once: true }), (token: unknown) => {
      found = true;
      return token;
    });
  }
  const elements = chainUnchecked<Buffer | string, { key: number; value: unknown }>([...stages, streamArray()]);
  // errors of the input reach the consumer through the chain, which pipeline destroys with them
  pipeline(input, elements, () => undefined);
  let position = 0;
  try {
    for await (const { value } of elements as AsyncIterable<{ key: number; value: unknown }>) {
      position += 1;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        yield { line: position, record: value as Record<string, unknown> };
      } else {
        yield { line: position, error: 'not a JSON object' };
      }
    }
  } catch (error) {
    if (error instanceof FeedFormatError || (error as { code?: unknown }).code !== undefined) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/array/i.test(message) && /top-level|should be/i.test(message)) {
      throw new FeedFormatError(`the value at ${path === '' ? 'the top level' : JSON.stringify(path)} is not an array`, { cause: error });
    }
    // the parser reads ahead of the records handed out: the break is somewhere after this one
    const where = position > 0 ? 'the text after this record is not valid JSON' : 'the text is not valid JSON';
    throw new FeedSyntaxError(position, `${where} (${message})`, { cause: error, unit: 'record' });
  } finally {
    elements.destroy();
  }
  if (!found) throw new FeedFormatError(`no record array at ${JSON.stringify(path)} (renamed?)`);
}
