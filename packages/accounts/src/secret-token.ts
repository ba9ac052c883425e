import { createHash, randomBytes } from 'node:crypto';

/** A secret for a link or a session: 256 random bits, URL-safe. Only its hash is stored. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a link or session token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A short public id for a row (`acc_...`). */
export function newPublicId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
