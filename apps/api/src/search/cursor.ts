import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { SearchQuery } from '@domain-index/contract';
import { z } from 'zod';
import type { Ordering } from './ordering';

/** Where a page ended: the last row's sort key (null = +Infinity / NULL), name and id. */
export interface CursorPosition {
  key: number | null;
  name: string;
  id: number;
}

/** The decoded content of a cursor. */
export interface CursorPayload {
  /** Fingerprint of the filters and ordering the cursor was made for. */
  fingerprint: string;
  after: CursorPosition;
  /** page_index of the page this cursor leads to. */
  page: number;
}

const payloadSchema = z.tuple([
  z.string().length(16),
  z.number().nullable(),
  z.string().min(1).max(253),
  z.number().int().nonnegative(),
  z.number().int().positive(),
]);

/** Bytes of HMAC-SHA256 kept: enough that a forged cursor cannot be guessed. */
const SIGNATURE_BYTES = 16;

/**
 * Opaque, signed cursors. The payload is compact JSON in base64url; the signature (HMAC with
 * the service's shared cursor secret) makes a tampered or made-up cursor detectable.
 */
export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  encode(payload: CursorPayload): string {
    const json = JSON.stringify([payload.fingerprint, payload.after.key, payload.after.name, payload.after.id, payload.page]);
    const body = Buffer.from(json).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The payload, or null when the cursor is malformed or its signature does not verify. */
  decode(cursor: string): CursorPayload | null {
    const [body, signature, extra] = cursor.split('.');
    if (body === undefined || signature === undefined || extra !== undefined) return null;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    const parsed = payloadSchema.safeParse(value);
    if (!parsed.success) return null;
    const [fingerprint, key, name, id, page] = parsed.data;
    return { fingerprint, after: { key, name, id }, page };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, SIGNATURE_BYTES).toString('base64url');
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest().subarray(0, 12).toString('base64url');

/** Fingerprint of the filters alone (the result set, whatever its order). */
export function filtersFingerprint(query: SearchQuery): string {
  const { cursor: _cursor, limit: _limit, sort: _sort, order: _order, search, ...filters } = query;
  return digest(
    JSON.stringify([
      [...(search ?? [])].sort(),
      Object.entries(filters)
        .filter(([, value]) => value !== undefined)
        .sort(([a], [b]) => a.localeCompare(b)),
    ]),
  );
}

/**
 * Fingerprint of everything that defines a result set and its order (not `limit` and not the
 * cursor): a cursor made for another fingerprint is stale.
 */
export function fingerprint(query: SearchQuery, ordering: Ordering): string {
  return digest(JSON.stringify([filtersFingerprint(query), ordering.sort, ordering.order]));
}
