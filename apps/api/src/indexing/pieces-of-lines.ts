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
