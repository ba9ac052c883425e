// SMTP_URL and SMTP_FROM parsed apart from the mailer, so that config.ts reads them without
// loading nodemailer (47 ms) for every command.
import addressparser from 'nodemailer/lib/addressparser';

/** The SMTP server mail goes through, as SMTP_URL gives it. */
export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps: TLS from the first byte; smtp: STARTTLS when the server offers it (required with credentials, see below). */
  secure: boolean;
  user: string | undefined;
  password: string | undefined;
}

const SMTP_URL_FORM =
  'must be a URL like smtps://user:password@smtp.example.com or smtp://smtp.example.com:587';

/**
 * Parses SMTP_URL: `smtp://` (port 587 by default, STARTTLS) or `smtps://` (port 465, implicit
 * TLS), with an optional percent-encoded `user:password`. The reason of a refusal never repeats
 * the value, which holds a password.
 */
export function parseSmtpUrl(
  value: string,
): { ok: true; smtp: SmtpSettings } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: SMTP_URL_FORM };
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    return { ok: false, reason: SMTP_URL_FORM };
  if (url.hostname === '') return { ok: false, reason: `${SMTP_URL_FORM} (the host is missing)` };
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    return { ok: false, reason: `${SMTP_URL_FORM} (no path or query)` };
  }
  let user: string | undefined;
  let password: string | undefined;
  try {
    user = url.username === '' ? undefined : decodeURIComponent(url.username);
    password = url.password === '' ? undefined : decodeURIComponent(url.password);
  } catch {
    return {
      ok: false,
      reason: `${SMTP_URL_FORM} (the user or password is not correctly percent-encoded)`,
    };
  }
  if (password !== undefined && user === undefined)
    return { ok: false, reason: `${SMTP_URL_FORM} (a password needs a user)` };
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return {
    ok: true,
    smtp: {
      host,
      port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
      secure,
      user,
      password,
    },
  };
}

/** Parses SMTP_FROM: one address, with or without a display name (`Domain Index <alerts@example.com>`). */
export function parseMailFrom(
  value: string,
): { ok: true; from: string } | { ok: false; reason: string } {
  const reason =
    'must be one email address, like alerts@example.com or "Domain Index <alerts@example.com>"';
  if (/[\r\n]/.test(value)) return { ok: false, reason };
  const parsed = addressparser(value.trim());
  const [only] = parsed;
  if (parsed.length !== 1 || only?.address === undefined || !isMailAddress(only.address))
    return { ok: false, reason };
  return { ok: true, from: value.trim() };
}

/** A plain address: something@domain, no spaces, no angle brackets. */
export function isMailAddress(address: string): boolean {
  return /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/.test(address);
}
