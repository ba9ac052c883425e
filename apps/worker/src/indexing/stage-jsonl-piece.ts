import { jsonlItem, withoutBom, type SourceConfig } from '@domain-index/indexer';
import { copyRow } from './copy-rows';
import { nameHash } from './staged-names';
import { stageItem, type RejectedRow } from './stage-item';

/** What staging one piece of a JSONL feed produced, with the feed's own line numbers. */
export interface StagedPiece {
  /** The piece's valid rows as COPY text (copyRow lines); null when it has none. */
  rows: string | null;
  /** nameHash of each valid row's name, for StagedNames. */
  names: Float64Array;
  /** Feed items read: valid and bad rows (a blank line is not an item). */
  items: number;
  /** Physical lines in the piece: the caller checks them against its own count (countLines). */
  lines: number;
  rejected: RejectedRow[];
}

/** The line breaks of readline with crlfDelay Infinity, which readFeed uses: CRLF, LF, lone CR. */
const LINE_BREAK = /\r\n|\n|\r/;

/**
 * Stages a piece of a JSONL feed cut at a line break (see piecesOfLines) whose first line is
 * the feed's line `firstLine`: splits its lines, reads, validates and derives each one. A pure
 * function of its input, so it runs the same in this thread or in a staging worker.
 */
export function stageJsonlPiece(piece: Uint8Array, firstLine: number, source: SourceConfig): StagedPiece {
  const text = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).toString('utf8');
  // Without a CR (nearly every feed) the three breaks are just LF, split without the regex.
  const lines = text.includes('\r') ? text.split(LINE_BREAK) : text.split('\n');
  // a piece ends with a line break (all but the feed's last one), which leaves an empty tail
  if (lines.at(-1) === '') lines.pop();
  let rows = '';
  const names: number[] = [];
  const rejected: RejectedRow[] = [];
  let items = 0;
  for (let i = 0; i < lines.length; i++) {
    const content = i === 0 && firstLine === 1 ? withoutBom(lines[i]!) : lines[i]!;
    const item = jsonlItem(content, firstLine + i);
    if (item === null) continue;
    items += 1;
    const staged = stageItem(item, source);
    if ('row' in staged) {
      rows += copyRow(staged.row.line, staged.row);
      names.push(nameHash(staged.row.domain_name as string));
    } else if ('rejected' in staged) rejected.push(staged.rejected);
  }
  return { rows: rows === '' ? null : rows, names: Float64Array.from(names), items, lines: lines.length, rejected };
}
