import { failed, shown, type Parsed } from './parsed';

const TRUE = new Set(['true', 't', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'f', 'no', 'n', '0']);

/** A yes/no value: JSON booleans, 1/0, and true/false, yes/no, y/n, t/f in any case. Empty is null. */
export function parseBoolean(value: unknown): Parsed<boolean> {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (typeof value === 'boolean') return { ok: true, value };
  if (value === 1 || value === 0) return { ok: true, value: value === 1 };
  if (typeof value !== 'string') return failed(`not a yes/no value ${shown(value)}`);
  const text = value.trim().toLowerCase();
  if (text === '') return { ok: true, value: null };
  if (TRUE.has(text)) return { ok: true, value: true };
  if (FALSE.has(text)) return { ok: true, value: false };
  return failed(`not a yes/no value ${shown(value)}`);
}
