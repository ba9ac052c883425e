/** Literal text, or a field whose value is put in its place. */
type Part = { text: string } | { field: string };

/** A compiled text template such as `https://www.dynadot.com/market/auction/{Domain}`. */
export interface TextTemplate {
  /** The marketplace fields the template names, in order, each once. */
  readonly fields: readonly string[];
  /**
   * The text with each `{field}` replaced by its value, trimmed and URL-encoded (a template
   * builds links, and a value must not change the URL's structure); undefined when a field
   * has no value, so that the next rule of the field is tried.
   */
  render(valueOf: (field: string) => string | undefined): string | undefined;
}

/**
 * Compiles a template: literal text with `{field}` placeholders naming the marketplace's
 * fields. The reason names the first mistake: a `{` that is not closed, a `}` that closes
 * nothing, an empty `{}`, or no placeholder at all (a fixed text is a `constant`).
 */
export function compileTemplate(source: string): { ok: true; template: TextTemplate } | { ok: false; reason: string } {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === '}') return { ok: false, reason: `"}" at ${i + 1} closes no "{"` };
    if (char !== '{') {
      literal += char;
      continue;
    }
    const end = source.indexOf('}', i + 1);
    const nested = source.indexOf('{', i + 1);
    if (end < 0 || (nested >= 0 && nested < end)) return { ok: false, reason: `"{" at ${i + 1} is not closed` };
    const field = source.slice(i + 1, end);
    if (field.trim() === '') return { ok: false, reason: `"{}" at ${i + 1} names no field` };
    if (literal !== '') parts.push({ text: literal });
    literal = '';
    parts.push({ field });
    i = end;
  }
  if (literal !== '') parts.push({ text: literal });
  const fields = [...new Set(parts.flatMap((part) => ('field' in part ? [part.field] : [])))];
  if (fields.length === 0) return { ok: false, reason: 'names no {field}; a fixed text is a constant' };
  return {
    ok: true,
    template: {
      fields,
      render(valueOf) {
        let text = '';
        for (const part of parts) {
          if ('text' in part) {
            text += part.text;
            continue;
          }
          const value = valueOf(part.field);
          if (value === undefined) return undefined;
          text += encodeURIComponent(value.trim());
        }
        return text;
      },
    },
  };
}
