import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { eq, serviceSecrets, type Database } from '@domain-index/db';

/** The service secret the webhook key is derived from (a row of service_secrets). */
const SERVICE_SECRET_NAME = 'webhook-secret-key';

/** Names this derivation, so the same service secret could never yield this key for another use. */
const HKDF_INFO = 'domain-index webhook signing secrets at rest, AES-256-GCM, v1';

/** Marks the format, so a later key or cipher can be told apart from this one. */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value could not be opened: damaged, altered, sealed under another key or for another owner. */
export class SecretBoxError extends Error {
  constructor() {
    // The same words whatever failed: the reason would help nobody but an attacker.
    super('a stored secret could not be decrypted');
    this.name = 'SecretBoxError';
  }
}

/**
 * Encrypts webhook signing secrets for storage (AES-256-GCM, a random 96-bit IV per value),
 * under a key derived with HKDF-SHA256 from a service secret. The key lives in a private field,
 * so logging or serialising the box shows nothing of it.
 */
export class SecretBox {
  readonly #key: KeyObject;

  constructor(serviceSecret: Buffer) {
    if (serviceSecret.length < 32)
      throw new Error('the service secret of the webhook key must be at least 32 bytes');
    this.#key = createSecretKey(
      Buffer.from(hkdfSync('sha256', serviceSecret, Buffer.alloc(0), HKDF_INFO, 32)),
    );
  }

  /**
   * `plaintext` sealed as `v1.<base64url(iv | ciphertext | tag)>`. `owner` (e.g. the alert's id)
   * is authenticated with it: a sealed value copied into another owner's row does not open there.
   */
  seal(plaintext: string, owner = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(owner, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The plaintext of a value `seal` made for the same owner; SecretBoxError for anything else. */
  open(sealed: string, owner = ''): string {
    const [version, encoded, extra] = sealed.split('.');
    if (
      version !== VERSION ||
      encoded === undefined ||
      extra !== undefined ||
      !/^[A-Za-z0-9_-]+$/.test(encoded)
    ) {
      throw new SecretBoxError();
    }
    const bytes = Buffer.from(encoded, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError();
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(owner, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretBoxError();
    }
  }

  /** Nothing of the key, whatever prints or serialises the box. */
  toJSON(): string {
    return '[SecretBox]';
  }

  toString(): string {
    return '[SecretBox]';
  }
}

/**
 * The box for webhook secrets, shared by every instance through the database as the cursor key
 * is (@domain-index/runtime/cursor-secret): the first instance creates the service secret, the others read it.
 */
export async function loadWebhookSecretKey(database: Database): Promise<SecretBox> {
  await database.db
    .insert(serviceSecrets)
    .values({ name: SERVICE_SECRET_NAME, value: randomBytes(32).toString('base64url') })
    .onConflictDoNothing();
  const [row] = await database.db
    .select()
    .from(serviceSecrets)
    .where(eq(serviceSecrets.name, SERVICE_SECRET_NAME));
  if (row === undefined) throw new Error('the webhook secret key could not be created');
  return new SecretBox(Buffer.from(row.value, 'base64url'));
}
