import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The product prefix: lets secret scanners find leaked keys. */
export const KEY_PREFIX = 'dix';
/** Where a key may be used; test keys are for demos and development. */
export type KeyEnvironment = 'live' | 'test';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 32;
const CHECKSUM_CHARS = 6;
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}_(live|test)_([0-9A-Za-z]{${RANDOM_CHARS}})([0-9A-Za-z]{${CHECKSUM_CHARS}})$`);
/** Characters of a key shown in listings: enough to recognise it, too few to use it. */
const DISPLAY_CHARS = 14;

function base62(value: number, width: number): string {
  let text = '';
  let rest = value;
  for (let i = 0; i < width; i += 1) {
    text = BASE62[rest % 62]! + text;
    rest = Math.floor(rest / 62);
  }
  return text;
}

/** CRC32 of the key body in base62: catches a mistyped or made-up key without a lookup. */
function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_CHARS);
}

/** A new key: `dix_<env>_` + 32 base62 characters from a cryptographic RNG + a 6-character checksum. */
export function generateApiKey(environment: KeyEnvironment): string {
  let random = '';
  for (let i = 0; i < RANDOM_CHARS; i += 1) random += BASE62[randomInt(62)]!;
  const body = `${KEY_PREFIX}_${environment}_${random}`;
  return `${body}${checksum(body)}`;
}

/** Whether a string has the shape and checksum of a key (says nothing of whether it exists). */
export function isWellFormedKey(candidate: string): boolean {
  const match = KEY_SHAPE.exec(candidate);
  if (match === null) return false;
  const body = `${KEY_PREFIX}_${match[1]!}_${match[2]!}`;
  return checksum(body) === match[3];
}

/** The only form of a key that is stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The start of a key, for `keys list`. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_CHARS);
}

/** A short public identifier of a key row, used to revoke it. */
export function newKeyId(): string {
  let id = 'key_';
  for (let i = 0; i < 16; i += 1) id += BASE62[randomInt(62)]!;
  return id;
}
