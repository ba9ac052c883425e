import { createDecipheriv, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { eq, serviceSecrets } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@domain-index/runtime/logger';
import { SecretBox, SecretBoxError, loadWebhookSecretKey } from './secret-box';
import { generateWebhookSecret } from './signing';

const box = new SecretBox(randomBytes(32));
const secret = generateWebhookSecret();

/** `sealed` with one bit of its decoded bytes flipped at `index`. */
function flipBit(sealed: string, index: number): string {
  const bytes = Buffer.from(sealed.slice('v1.'.length), 'base64url');
  bytes[index]! ^= 0x01;
  return `v1.${bytes.toString('base64url')}`;
}

describe('a sealed webhook secret', () => {
  it.each([
    ['a signing secret', secret],
    ['an empty string', ''],
    ['non-ASCII text', 'clé-秘密-🔑'],
    ['a long value', 'x'.repeat(10_000)],
  ])('opens to what was sealed: %s', (_what, plaintext) => {
    expect(box.open(box.seal(plaintext, 'alr_1'), 'alr_1')).toBe(plaintext);
  });

  it('is versioned base64url, holds nothing of the plaintext and differs on every seal (random IV)', () => {
    const sealed = [box.seal(secret), box.seal(secret)];
    for (const value of sealed) {
      expect(value).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
      expect(value).not.toContain(secret.slice('whsec_'.length, 20));
      // iv 12 + 50 bytes of secret + tag 16
      expect(Buffer.from(value.slice(3), 'base64url')).toHaveLength(12 + secret.length + 16);
    }
    expect(sealed[0]).not.toBe(sealed[1]);
  });

  it('does not open when any bit of it was changed: IV, ciphertext or tag', () => {
    const sealed = box.seal(secret, 'alr_1');
    const length = Buffer.from(sealed.slice(3), 'base64url').length;
    for (let index = 0; index < length; index++) {
      expect(() => box.open(flipBit(sealed, index), 'alr_1')).toThrow(SecretBoxError);
    }
  });

  it.each([
    ['truncated', (sealed: string) => sealed.slice(0, -4)],
    ['shorter than an IV and a tag', () => `v1.${Buffer.alloc(20).toString('base64url')}`],
    ['another version', (sealed: string) => sealed.replace(/^v1\./, 'v2.')],
    ['without its version', (sealed: string) => sealed.slice(3)],
    ['with extra parts', (sealed: string) => `${sealed}.AAAA`],
    ['not base64url', (sealed: string) => `${sealed.slice(0, -2)}+/`],
    ['empty', () => ''],
  ])('does not open when %s', (_what, damage: (sealed: string) => string) => {
    const sealed = box.seal(secret, 'alr_1');
    expect(() => box.open(damage(sealed), 'alr_1')).toThrow(new SecretBoxError());
  });

  it('does not open under another key', () => {
    const other = new SecretBox(randomBytes(32));
    expect(() => other.open(box.seal(secret))).toThrow(SecretBoxError);
  });

  it("does not open for another owner: a value copied into another alert's row is refused", () => {
    const sealed = box.seal(secret, 'alr_1');
    expect(() => box.open(sealed, 'alr_2')).toThrow(SecretBoxError);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
  });

  it('says only that it could not be decrypted, never the value or the key', () => {
    const error = (() => {
      try {
        box.open(flipBit(box.seal(secret), 20));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(SecretBoxError);
    expect((error as Error).message).toBe('a stored secret could not be decrypted');
  });

  it('refuses a service secret shorter than 32 bytes', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(
      'the service secret of the webhook key must be at least 32 bytes',
    );
  });

  it('shows nothing of its key when logged, printed or serialised', () => {
    const serviceSecret = randomBytes(32);
    const logged = new SecretBox(serviceSecret);
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    logger.info({ box: logged }, 'box');
    const texts = [
      JSON.stringify({ logged }),
      inspect(logged, { showHidden: true, depth: 10 }),
      String(logged),
      ...lines,
    ];
    for (const text of texts) {
      for (const encoding of ['hex', 'base64', 'base64url'] as const)
        expect(text).not.toContain(serviceSecret.toString(encoding));
    }
    expect(JSON.stringify({ logged })).toBe('{"logged":"[SecretBox]"}');
  });
});

describe.each(testEngines())('the webhook secret key on $engine', ({ engine, skip }) => {
  let test: TestDatabase;
  beforeAll(async () => {
    if (!skip) test = await createTestDatabase(engine);
  });
  afterAll(async () => {
    if (!skip) await test.dispose();
  });

  it.skipIf(skip)(
    'is created once and shared: what one instance seals, another opens',
    async () => {
      const [first, second, third] = await Promise.all([
        loadWebhookSecretKey(test.database),
        loadWebhookSecretKey(test.database),
        loadWebhookSecretKey(test.database),
      ]);
      const sealed = first.seal(secret, 'alr_1');
      expect(second.open(sealed, 'alr_1')).toBe(secret);
      expect(third.open(sealed, 'alr_1')).toBe(secret);
      const later = await loadWebhookSecretKey(test.database);
      expect(later.open(sealed, 'alr_1')).toBe(secret);
      const rows = await test.database.db
        .select()
        .from(serviceSecrets)
        .where(eq(serviceSecrets.name, 'webhook-secret-key'));
      expect(rows).toHaveLength(1);
      expect(Buffer.from(rows[0]!.value, 'base64url')).toHaveLength(32);
    },
  );

  it.skipIf(skip)('is not the stored service secret itself but derived from it', async () => {
    const box = await loadWebhookSecretKey(test.database);
    const [row] = await test.database.db
      .select()
      .from(serviceSecrets)
      .where(eq(serviceSecrets.name, 'webhook-secret-key'));
    const stored = Buffer.from(row!.value, 'base64url');
    // The same derivation from the stored value opens it...
    expect(new SecretBox(stored).open(box.seal(secret))).toBe(secret);
    // ...while the stored bytes used directly as an AES key (no HKDF) do not.
    const bytes = Buffer.from(box.seal(secret).slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', stored, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.alloc(0));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    expect(() =>
      Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]),
    ).toThrow();
  });
});
