import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { and, eq, gt, inArray, isNull, keyReveals, lt, type Database, type Drizzle } from '@domain-index/db';
import { newPublicId } from '@domain-index/accounts/secret-token';

/** How long a new key waits for the page that shows it. */
const REVEAL_TTL_MS = 10 * 60_000;
/** A form token as forms carry it: 256 random bits, base64url. */
const FORM_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A new one-time form token: a second post of the same form is recognised by it. */
export function newFormToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether a posted form token has the shape of one (a form without one is refused). */
export function isFormToken(value: string): boolean {
  return FORM_TOKEN.test(value);
}

const hashFormToken = (token: string) => createHash('sha256').update(`form ${token}`).digest('hex');

/**
 * The key that seals a new key for its page: derived from the session token, which only the
 * browser holds (the database keeps its hash), so the row alone opens nothing.
 */
function sealingKey(sessionToken: string, revealId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionToken, revealId, 'domain-index key reveal', 32));
}

function seal(key: string, sessionToken: string, revealId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(sessionToken, revealId), iv);
  const sealed = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The key, or undefined when it was sealed for another session. */
function unseal(sealed: string, sessionToken: string, revealId: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  try {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      sealingKey(sessionToken, revealId),
      bytes.subarray(0, 12),
    );
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** What a new key is, for its page. */
export type KeyRevealKind = 'created' | 'rotated';
/**
 * What an alert's new signing secret is, for its page (the same one-time mechanism as keys):
 * an alert made with a webhook, a rotated secret, a first webhook added to an alert; an alert
 * made without one has no secret, but its row still recognises a form posted twice.
 */
export type AlertRevealKind = 'alert_created' | 'alert_rotated' | 'alert_webhook_added' | 'alert_created_no_secret';
/** What a reveal holds. */
export type RevealKind = KeyRevealKind | AlertRevealKind;

/** A second post of a form whose first post made a key: the caller redirects to that key's page. */
export class FormAlreadyPosted extends Error {
  override readonly name = 'FormAlreadyPosted';
  constructor() {
    super('this form was posted already');
  }
}

/** The page of the key a form made, if a post of this form made one (and it is not expired). */
export async function revealOfForm(
  database: Database,
  accountId: string,
  formToken: string,
  at: Date,
): Promise<string | undefined> {
  const [row] = await database.db
    .select({ id: keyReveals.id })
    .from(keyReveals)
    .where(
      and(
        eq(keyReveals.formTokenHash, hashFormToken(formToken)),
        eq(keyReveals.accountId, accountId),
        gt(keyReveals.expiresAt, at),
      ),
    );
  return row?.id;
}

/**
 * Stores a new key (or an alert's signing secret, `keyId` then naming the alert) for the page
 * that shows it, in the transaction that made it. A concurrent post of the same form waits on
 * the first one's row, then finds it there: FormAlreadyPosted, which undoes this post's key.
 * Expired rows of the account are deleted on the way. A null `key` stores nothing to show:
 * the row only recognises the form.
 */
export async function storeReveal(
  tx: Pick<Drizzle, 'insert' | 'delete'>,
  options: {
    accountId: string;
    formToken: string;
    sessionToken: string;
    kind: RevealKind;
    keyId: string;
    key: string | null;
    at: Date;
  },
): Promise<string> {
  await tx
    .delete(keyReveals)
    .where(and(eq(keyReveals.accountId, options.accountId), lt(keyReveals.expiresAt, options.at)));
  const id = newPublicId('new');
  const inserted = await tx
    .insert(keyReveals)
    .values({
      formTokenHash: hashFormToken(options.formToken),
      id,
      accountId: options.accountId,
      keyId: options.keyId,
      kind: options.kind,
      sealed: options.key === null ? null : seal(options.key, options.sessionToken, id),
      createdAt: options.at,
      expiresAt: new Date(options.at.getTime() + REVEAL_TTL_MS),
    })
    .onConflictDoNothing({ target: keyReveals.formTokenHash })
    .returning({ id: keyReveals.id });
  if (inserted.length === 0) throw new FormAlreadyPosted();
  return id;
}

/** What the page of a new key shows. */
export type Reveal<Kind extends RevealKind = RevealKind> =
  | { shown: 'now'; key: string; keyId: string; kind: Kind }
  | { shown: 'before' | 'elsewhere' | 'expired'; keyId: string; kind: Kind };

/**
 * Why a reveal shows nothing now, in words for its page; `before` is the caller's, since what is
 * kept of a key (a hash) differs from what is kept of a signing secret (sealed, to sign with).
 */
export function notShownReason(shown: 'before' | 'elsewhere' | 'expired', before: string): string {
  return {
    before,
    elsewhere: 'It was made in another browser session, and is shown only there.',
    expired: 'It was not opened within 10 minutes of being made, so it can no longer be shown.',
  }[shown];
}

/**
 * Takes a new key out of its row to show it, once: the row is emptied in the same transaction,
 * so a reload (or a second tab) finds `before`. A session other than the one that made it finds
 * `elsewhere`, and the key stays for its own session. Undefined when the account has no such
 * page of one of `kinds` (the keys' page never shows an alert's secret, nor the reverse).
 */
export async function takeReveal<Kind extends RevealKind>(
  database: Database,
  options: { id: string; accountId: string; sessionToken: string; at: Date; kinds: readonly Kind[] },
): Promise<Reveal<Kind> | undefined> {
  return database.db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        sealed: keyReveals.sealed,
        keyId: keyReveals.keyId,
        kind: keyReveals.kind,
        expiresAt: keyReveals.expiresAt,
      })
      .from(keyReveals)
      .where(and(eq(keyReveals.id, options.id), eq(keyReveals.accountId, options.accountId), inArray(keyReveals.kind, [...options.kinds])))
      .for('update');
    if (row === undefined) return undefined;
    const kind = row.kind as Kind;
    if (row.sealed === null) return { shown: 'before', keyId: row.keyId, kind };
    if (row.expiresAt <= options.at) return { shown: 'expired', keyId: row.keyId, kind };
    const key = unseal(row.sealed, options.sessionToken, options.id);
    if (key === undefined) return { shown: 'elsewhere', keyId: row.keyId, kind };
    await tx
      .update(keyReveals)
      .set({ sealed: null, shownAt: options.at })
      .where(and(eq(keyReveals.id, options.id), isNull(keyReveals.shownAt)));
    return { shown: 'now', key, keyId: row.keyId, kind };
  });
}
