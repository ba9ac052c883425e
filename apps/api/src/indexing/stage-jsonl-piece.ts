import { jsonlItem, withoutBom, type SourceConfig } from '@domain-index/indexer';
import { stageItem, type RejectedRow, type StagedRow } from './stage-item';

/** What staging one piece of a JSONL feed produced. Lines count from the piece's first line, 1. */
export interface StagedPiece {
  /** The piece's valid rows as a JSON array for json_to_recordset; null when it has none. */
  json: string | null;
  /** Feed items read: valid and bad rows (a blank line is not an item). */
  items: number;
  /** Physical lines in the piece, so that the next piece knows where its lines start. */
  lines: number;
  rejected: RejectedRow[];
}

/** The line breaks of readline with crlfDelay Infinity, which readFeed uses: CRLF, LF, lone CR. */
const LINE_BREAK = /\r\n|\n|\r/;

/**
 * Stages a piece of a JSONL feed cut at a line break (see piecesOfLines): splits its lines,
 * reads, validates and derives each one. A pure function of its input, so it runs the same in
 * this thread or in a staging worker.
 */
export function stageJsonlPiece(piece: Uint8Array, isFirstPiece: boolean, source: SourceConfig): StagedPiece {
  const lines = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).toString('utf8').split(LINE_BREAK);
  // a piece ends with a line break (all but the feed's last one), which leaves an empty tail
  if (lines.at(-1) === '') lines.pop();
  const rows: StagedRow[] = [];
  const rejected: RejectedRow[] = [];
  let items = 0;
  for (let i = 0; i < lines.length; i++) {
    const content = i === 0 && isFirstPiece ? withoutBom(lines[i]!) : lines[i]!;
    const item = jsonlItem(content, i + 1);
    if (item === null) continue;
    items += 1;
    const staged = stageItem(item, source);
    if ('row' in staged) rows.push(staged.row);
    else rejected.push(staged.rejected);
  }
  return { json: rows.length > 0 ? JSON.stringify(rows) : null, items, lines: lines.length, rejected };
}
