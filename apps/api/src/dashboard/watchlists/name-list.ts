import type { Request } from 'express';
import { WATCHLIST_LIMITS } from '@domain-index/contract';

/** Names one form may send, as the API allows a call. */
export const NAMES_PER_FORM = WATCHLIST_LIMITS.domainsPerCall;

/** Names read from a pasted list, each with the line it was on (refusals are shown by line). */
export type PastedNames = { ok: true; names: string[]; lines: number[] } | { ok: false; message: string };

/**
 * Splits a pasted list into names: one a line, or separated by commas, semicolons or spaces;
 * blank entries are skipped. More than NAMES_PER_FORM is refused whole, so nothing is half added.
 */
export function readPastedNames(text: string): PastedNames {
  const names: string[] = [];
  const lines: number[] = [];
  const rows = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < rows.length; i += 1) {
    for (const entry of rows[i]!.split(/[\s,;]+/)) {
      if (entry === '') continue;
      names.push(entry);
      lines.push(i + 1);
      if (names.length > NAMES_PER_FORM) return { ok: false, message: `At most ${NAMES_PER_FORM.toLocaleString('en-US')} names can be sent at a time: split the list and send the rest after.` };
    }
  }
  return { ok: true, names, lines };
}

/** The `domains` field of a posted form as text ('' when missing). */
export function postedNames(req: Request): string {
  const value = (req.body as Record<string, unknown> | undefined)?.domains;
  return typeof value === 'string' ? value : '';
}
