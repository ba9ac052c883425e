import type { Request, Response } from 'express';
import { SESSION_ABSOLUTE_MS } from '@domain-index/accounts/sessions';
import { DASHBOARD } from './layout';

/** The session cookie's name; `__Host-` binds it to this host and path when served over https. */
function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-di_session' : 'di_session';
}

/** The session token a request carries, if any. */
export function readSessionCookie(req: Request, secure: boolean): string | undefined {
  const name = sessionCookieName(secure);
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return decoded(part.slice(at + 1).trim());
  }
  return undefined;
}

/** A cookie value percent-decoded; undefined (no session) when it is not valid percent-encoding. */
function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** HttpOnly, SameSite=Lax, Secure over https; the server ends it earlier when idle. */
export function setSessionCookie(res: Response, token: string, secure: boolean): void {
  res.cookie(sessionCookieName(secure), token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: secure ? '/' : DASHBOARD,
    maxAge: SESSION_ABSOLUTE_MS,
  });
}

/** Removes the cookie from the browser (the session itself is ended on the server). */
export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(sessionCookieName(secure), { httpOnly: true, sameSite: 'lax', secure, path: secure ? '/' : DASHBOARD });
}
