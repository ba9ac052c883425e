import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SOURCES } from '@domain-index/indexer';
import { countLines, piecesOfLines } from '../src/indexing/pieces-of-lines';
import { stageJsonlPiece } from '../src/indexing/stage-jsonl-piece';

function chunks(parts: readonly string[]): Readable {
  return Readable.from(parts.map((part) => Buffer.from(part)));
}

async function piecesOf(parts: readonly string[], targetBytes: number): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of piecesOfLines(chunks(parts), targetBytes)) pieces.push(Buffer.from(piece).toString());
  return pieces;
}

describe('piecesOfLines', () => {
  it('cuts after the last complete line once a piece is big enough, and loses no byte', async () => {
    const parts = ['aaa\nbb', 'b\ncc', 'c\ndd', 'd\neee'];
    const pieces = await piecesOf(parts, 6);
    expect(pieces).toEqual(['aaa\n', 'bbb\n', 'ccc\n', 'ddd\n', 'eee']);
    expect(pieces.join('')).toBe(parts.join(''));
  });

  it('never cuts a CRLF in two, also when the CR ends one chunk and the LF starts the next', async () => {
    const pieces = await piecesOf(['one\r\ntwo\r', '\nthree\r\n'], 4);
    expect(pieces.join('')).toBe('one\r\ntwo\r\nthree\r\n');
    for (const piece of pieces) expect(piece.startsWith('\n')).toBe(false);
  });

  it('cuts after a lone CR, a line break of its own', async () => {
    const pieces = await piecesOf(['one\rtwo\rthr', 'ee'], 4);
    expect(pieces).toEqual(['one\rtwo\r', 'three']);
  });

  it('keeps a line longer than the target whole, and yields nothing for an empty feed', async () => {
    expect(await piecesOf(['x'.repeat(50), 'y'.repeat(50), '\nz'], 8)).toEqual([`${'x'.repeat(50)}${'y'.repeat(50)}\n`, 'z']);
    expect(await piecesOf([], 8)).toEqual([]);
  });

  it('gives each piece its own buffer, so it can be transferred to a worker', async () => {
    for await (const piece of piecesOfLines(chunks(['a\nb\nc\n', 'd\n']), 2)) {
      expect(piece.byteOffset).toBe(0);
      expect(piece.buffer.byteLength).toBe(piece.byteLength);
    }
  });
});

describe('countLines', () => {
  const cases = ['', 'a', 'a\n', '\n', '\n\n', 'a\nb', 'a\r\nb\r\n', 'a\rb', 'a\r', '\r\r\n\n', 'é\u2028x\n{"a":1}\r\n\r'];
  it.each(cases)('counts the lines of %j as the piece stager splits them', (text) => {
    const piece = new Uint8Array(Buffer.from(text));
    expect(countLines(piece)).toBe(stageJsonlPiece(piece, 1, DEFAULT_SOURCES[0]!).lines);
  });
  it('counts a final line without a break, and a final break as the end of a line', () => {
    expect(countLines(Buffer.from('a\nb'))).toBe(2);
    expect(countLines(Buffer.from('a\nb\n'))).toBe(2);
    expect(countLines(Buffer.from('a\r\nb\r'))).toBe(2);
    expect(countLines(Buffer.from('a\r\rb'))).toBe(3);
  });
});

describe('stageJsonlPiece', () => {
  it('stages a piece with LF, CRLF or CR line breaks alike, numbering the same lines', () => {
    const source = DEFAULT_SOURCES[0]!;
    const lines = [
      JSON.stringify({ domain_name: 'first.com', status: 'auction', current_bid: 12.5 }),
      '',
      'not json',
      JSON.stringify({ domain_name: 'second.net', status: 'available', buy_now_price: '1500' }),
    ];
    const staged = ['\n', '\r\n', '\r'].map((lineBreak) =>
      stageJsonlPiece(new Uint8Array(Buffer.from(lines.join(lineBreak) + lineBreak)), 10, source),
    );
    expect(staged[0]!.items).toBe(3);
    expect(staged[0]!.rejected).toEqual([{ line: 12, reason: 'invalid JSON' }]);
    expect(staged[0]!.rows!.split('\n').map((row) => row.split('\t')[0])).toEqual(['10', '13', '']);
    expect(staged[1]).toEqual(staged[0]);
    expect(staged[2]).toEqual(staged[0]);
  });
});
