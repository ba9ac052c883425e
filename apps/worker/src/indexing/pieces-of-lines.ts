const LF = 0x0a;
const CR = 0x0d;

/**
 * Where the last complete line of `bytes` ends (0 when no line is complete). A CR as the very
 * last byte may be the first half of a CRLF whose LF has not arrived yet, so it does not count.
 */
function endOfLastLine(bytes: Buffer): number {
  const lf = bytes.lastIndexOf(LF);
  const cr = bytes.length >= 2 ? bytes.lastIndexOf(CR, bytes.length - 2) : -1;
  return Math.max(lf, cr) + 1;
}

/**
 * Cuts a byte stream into pieces of about `targetBytes` that each end right after a line
 * break (the last piece ends where the stream does), so that pieces can be staged apart and
 * their lines numbered by adding up the lines before them. Each piece owns its ArrayBuffer,
 * so it can be transferred to a worker without a copy. A line longer than the target makes a
 * longer piece. Memory stays at a piece or two whatever the feed's size.
 */
export async function* piecesOfLines(input: AsyncIterable<string | Buffer>, targetBytes: number): AsyncGenerator<Uint8Array> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  for await (const data of input) {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    held.push(bytes);
    heldBytes += bytes.length;
    if (heldBytes < targetBytes) continue;
    const all = Buffer.concat(held, heldBytes);
    const end = endOfLastLine(all);
    if (end === 0) {
      held = [all];
      continue;
    }
    const piece = new Uint8Array(end);
    piece.set(all.subarray(0, end));
    yield piece;
    const rest = all.subarray(end);
    held = rest.length > 0 ? [rest] : [];
    heldBytes = rest.length;
  }
  if (heldBytes > 0) {
    const piece = new Uint8Array(heldBytes);
    piece.set(Buffer.concat(held, heldBytes));
    yield piece;
  }
}

/**
 * The lines of a piece as stageJsonlPiece splits them (CRLF, LF and lone CR each end a line;
 * a final line break ends the last line, it does not start another), counted in the bytes
 * without decoding them: neither break byte occurs inside a UTF-8 sequence. The reader counts
 * lines as it deals pieces out, so each piece is staged knowing its first line number.
 */
export function countLines(piece: Uint8Array): number {
  const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
  if (bytes.length === 0) return 0;
  let breaks = 0;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) breaks += 1;
  // A CR right before an LF is part of that break; any other CR is a break of its own.
  for (let at = bytes.indexOf(CR); at !== -1; at = bytes.indexOf(CR, at + 1)) if (bytes[at + 1] !== LF) breaks += 1;
  const last = bytes[bytes.length - 1];
  return last === LF || last === CR ? breaks : breaks + 1;
}
