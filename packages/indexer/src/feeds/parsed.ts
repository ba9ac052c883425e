/** What a value parser made of one value: a value (`null` when the feed left it out), or why it is none. */
export type Parsed<T> = { ok: true; value: T | null } | { ok: false; reason: string };

const MAX_SHOWN = 40;

/** A feed value quoted and shortened for a reason, so a huge or multi-line value cannot flood a report. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text);
}

/** A parse failure with its reason. */
export const failed = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** A scalar feed value as text (a number as written by JSON); objects as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}
