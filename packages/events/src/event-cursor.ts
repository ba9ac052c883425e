import { createHmac, timingSafeEqual } from 'node:crypto';

/** Bytes of HMAC-SHA256 kept: enough that a made-up cursor cannot be guessed. */
const SIGNATURE_BYTES = 16;

/**
 * The change feed's cursors: a position (the id of the last event a page examined), signed with
 * the service's shared cursor secret. Opaque to callers and independent of the filters: a
 * caller may change its filters and carry on from where it was. Signed under a label of its
 * own, so that a search cursor is never taken for one.
 */
export class EventCursorCodec {
  constructor(private readonly secret: Buffer) {}

  encode(position: number): string {
    const body = Buffer.from(JSON.stringify({ id: position })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The position, or null when the cursor is malformed or was not made by this API. */
  decode(cursor: string): number | null {
    const [body, signature, extra] = cursor.split('.');
    if (body === undefined || signature === undefined || extra !== undefined) return null;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { id?: unknown };
      return typeof value.id === 'number' && Number.isSafeInteger(value.id) && value.id >= 0 ? value.id : null;
    } catch {
      return null;
    }
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(`events:${body}`).digest().subarray(0, SIGNATURE_BYTES).toString('base64url');
  }
}
