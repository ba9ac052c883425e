import type { AccountKey } from '@domain-index/accounts/account-keys';
import { html, type SafeHtml } from '@domain-index/html/html';
import { utc } from './layout';

/** What `revokeKeyInUrl` writes as a leaked key's reason, before where in the URL it was. */
const LEAKED = 'leaked: sent in the URL ';

/**
 * A key's state and why, in words: active (and until when), rotated (to which key, working
 * until when or stopped when), revoked (by whom, or as leaked in a URL: where, when, from which
 * address), expired (when).
 */
export function keyState(key: AccountKey, email: string): { label: string; why: string } {
  if (key.revokedAt !== null) {
    const from = key.revokedFrom === null ? '' : ` from ${key.revokedFrom}`;
    const reason = key.revokedReason ?? '';
    if (reason.startsWith(LEAKED)) {
      return {
        label: 'revoked',
        why: `Revoked as leaked: it was sent in the URL (${reason.slice(LEAKED.length)})${from} on ${utc(key.revokedAt)}.`,
      };
    }
    if (reason === 'revoked by an operator')
      return {
        label: 'revoked',
        why: `Revoked by an operator (domain-index keys revoke) on ${utc(key.revokedAt)}.`,
      };
    return { label: 'revoked', why: `Revoked by ${email}${from} on ${utc(key.revokedAt)}.` };
  }
  if (key.replacedBy !== null) {
    const successor = `${key.replacedBy.displayPrefix}…`;
    return key.usable
      ? {
          label: 'rotated',
          why: `Rotated: replaced by ${successor}; this key still works until ${utc(key.expiresAt)}.`,
        }
      : {
          label: 'rotated',
          why: `Rotated: replaced by ${successor}; stopped working on ${utc(key.expiresAt)}.`,
        };
  }
  if (!key.usable) return { label: 'expired', why: `Expired on ${utc(key.expiresAt)}.` };
  return {
    label: 'active',
    why: key.expiresAt === null ? 'Never expires.' : `Expires on ${utc(key.expiresAt)}.`,
  };
}

/** The state as the keys page shows it: a word, and why under it. */
export function keyStateCell(key: AccountKey, email: string): SafeHtml {
  const state = keyState(key, email);
  return html`<span class="status status-${state.label}">${state.label}</span
    ><span class="detail">${state.why}</span>`;
}
