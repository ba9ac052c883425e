import type { Domain } from './generated/api-types';
import { ConnectionError, DomainIndexError, errorFromResponse } from './errors';

/**
 * The domains of a JSON-lines export with `summary=true`, parsed line by line as the body
 * arrives. An error line (the export failed part-way) throws the error it carries; a body that
 * ends without the summary line, or with another count than it announced, throws a
 * ConnectionError: the rows read so far are not the whole export.
 */
export async function* parseExportLines(response: Response): AsyncGenerator<Domain, void, undefined> {
  const body = response.body;
  if (body === null) throw new DomainIndexError('the export has no body', { status: response.status, headers: response.headers });
  const decoder = new TextDecoder();
  let buffered = '';
  let rows = 0;
  let summary: number | undefined;
  const line = (text: string): Domain | undefined => {
    if (text === '') return undefined;
    if (summary !== undefined) throw new ConnectionError('the export went on after its summary line');
    const value = JSON.parse(text) as Record<string, unknown>;
    if ('error' in value) throw errorFromResponse(503, value, response.headers);
    if (value.object === 'export_summary') {
      summary = Number(value.rows);
      return undefined;
    }
    rows += 1;
    return value as unknown as Domain;
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const domain = line(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        if (domain !== undefined) yield domain;
        newline = buffered.indexOf('\n');
      }
    }
  } catch (error) {
    if (error instanceof DomainIndexError) throw error;
    throw new ConnectionError(`the export was cut off after ${rows} rows: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    reader.releaseLock();
  }
  const last = line(buffered + decoder.decode());
  if (last !== undefined) yield last;
  if (summary === undefined) throw new ConnectionError(`the export ended after ${rows} rows without its summary line: it is incomplete`);
  if (summary !== rows) throw new ConnectionError(`the export announced ${summary} rows and sent ${rows}`);
}
