import { isIP } from 'node:net';
import { createTransport, type Transporter } from 'nodemailer';
import type { SMTPSentMessageInfo, SMTPTransportOptions } from 'nodemailer/lib/smtp-transport';
import addressparser from 'nodemailer/lib/addressparser';
import type { Logger } from '@domain-index/runtime/logger';
import { isMailAddress, parseMailFrom, parseSmtpUrl, type SmtpSettings } from './mail-settings';

export { parseMailFrom, parseSmtpUrl, type SmtpSettings };

/** One message: a text and an HTML body. */
export interface MailMessage {
  /** One recipient address. */
  to: string;
  subject: string;
  text: string;
  html: string;
  /**
   * An unsubscribe link that works without signing in: sent as List-Unsubscribe with
   * List-Unsubscribe-Post (RFC 8058 one-click), so a POST to it must unsubscribe too.
   */
  unsubscribeUrl?: string;
}

/** Why a message was not sent. */
export type MailFailureKind =
  'invalid_message' | 'auth' | 'connection' | 'tls' | 'timeout' | 'rejected' | 'protocol';

export type MailOutcome =
  | { ok: true; messageId: string }
  | {
      ok: false;
      error: MailFailureKind;
      /** Safe to log and show: never the password, the user or the SMTP_URL. */
      message: string;
      /** Whether the same message may go through later (a 4xx reply, a broken connection), or never will (a 5xx). */
      retryable: boolean;
    };

/** What to give a mailer. */
export interface MailerOptions {
  smtp: SmtpSettings;
  /** The From header (SMTP_FROM), already checked by parseMailFrom. */
  from: string;
  logger?: Logger;
  /** Connection, greeting and each reply; 10 s by default. */
  timeoutMs?: number;
}

/**
 * Whether the connection must be upgraded with STARTTLS before logging in: a password never
 * crosses a network in clear text. Without credentials, or to a server on loopback (as Go's
 * net/smtp PlainAuth allows), STARTTLS is used when offered; smtps is TLS from the start.
 */
export function mustUseTls(smtp: SmtpSettings): boolean {
  return !smtp.secure && smtp.user !== undefined && !isLoopback(smtp.host);
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * Sends mail through one SMTP server. The credentials are held in private fields only: a logged
 * or serialised mailer shows none of them, nodemailer's own logging is off, and every failure is
 * rewritten into a message without them.
 */
export class Mailer {
  readonly #transport: Transporter<SMTPSentMessageInfo>;
  readonly #from: string;
  readonly #secrets: string[];
  readonly #logger: Logger | undefined;

  constructor(options: MailerOptions) {
    const { smtp } = options;
    const timeout = options.timeoutMs ?? 10_000;
    const credentials =
      smtp.user === undefined ? undefined : { user: smtp.user, pass: smtp.password ?? '' };
    const transport: SMTPTransportOptions = {
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      requireTLS: mustUseTls(smtp),
      ...(credentials === undefined ? {} : { auth: credentials }),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      logger: false,
      debug: false,
      // Messages are text we build; nothing in them may make nodemailer read a file or fetch a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    };
    this.#transport = createTransport(transport);
    this.#from = options.from;
    this.#logger = options.logger;
    this.#secrets = [smtp.password, smtp.user]
      .filter((value): value is string => value !== undefined && value !== '')
      .flatMap((value) => [value, encodeURIComponent(value), Buffer.from(value).toString('base64')])
      .sort((a, b) => b.length - a.length);
  }

  /** Sends one message; never throws for what the server or the network does. */
  async send(message: MailMessage): Promise<MailOutcome> {
    const to = addressparser(message.to);
    const [recipient] = to;
    if (to.length !== 1 || recipient?.address === undefined || !isMailAddress(recipient.address)) {
      return this.#failed({
        ok: false,
        error: 'invalid_message',
        message: 'the recipient is not one email address',
        retryable: false,
      });
    }
    try {
      const info = await this.#transport.sendMail({
        from: this.#from,
        to: recipient.address,
        // A subject holds names customers chose: one line, whatever they typed.
        subject: message.subject.replace(/[\r\n]+/g, ' '),
        text: message.text,
        html: message.html,
        ...(message.unsubscribeUrl === undefined
          ? {}
          : {
              list: { unsubscribe: message.unsubscribeUrl },
              headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
            }),
      });
      return { ok: true, messageId: info.messageId };
    } catch (error) {
      return this.#failed(this.#classify(error));
    }
  }

  /** Closes the transport's connections. */
  close(): void {
    this.#transport.close();
  }

  toJSON(): string {
    return '[Mailer]';
  }

  toString(): string {
    return '[Mailer]';
  }

  #failed(outcome: Extract<MailOutcome, { ok: false }>): MailOutcome {
    this.#logger?.warn(
      { mail_error: outcome.error, retryable: outcome.retryable },
      `mail not sent: ${outcome.message}`,
    );
    return outcome;
  }

  #classify(error: unknown): Extract<MailOutcome, { ok: false }> {
    const { code, responseCode, response } = (error ?? {}) as {
      code?: unknown;
      responseCode?: unknown;
      response?: unknown;
    };
    const reply = typeof responseCode === 'number' ? responseCode : undefined;
    // The server's own words, as far as they are safe: one line, the credentials cut out.
    const said =
      typeof response === 'string'
        ? `: the server said "${this.#redact(response.split(/\r?\n/)[0] ?? '').slice(0, 200)}"`
        : '';
    const retryable = reply === undefined ? true : reply >= 400 && reply < 500;
    switch (code) {
      case 'EAUTH':
      case 'ENOAUTH':
        return {
          ok: false,
          error: 'auth',
          message: `the SMTP server refused the login${said}`,
          // 454 is a temporary failure of the login; 535 and the rest are a wrong login.
          retryable: reply !== undefined && reply >= 400 && reply < 500,
        };
      case 'ETLS':
      case 'EREQUIRETLS':
        return {
          ok: false,
          error: 'tls',
          message: 'TLS with the SMTP server failed (or it does not offer STARTTLS)',
          retryable: true,
        };
      case 'ETIMEDOUT':
        return {
          ok: false,
          error: 'timeout',
          message: 'the SMTP server did not answer in time',
          retryable: true,
        };
      case 'ECONNECTION':
      case 'ESOCKET':
      case 'EDNS':
      case 'EPROXY':
        return {
          ok: false,
          error: 'connection',
          message: `could not talk to the SMTP server${socketReason(error)}`,
          retryable: true,
        };
      case 'EENVELOPE':
      case 'EMESSAGE':
        return {
          ok: false,
          error: 'rejected',
          message: `the SMTP server refused the message${said}`,
          retryable,
        };
      default:
        return {
          ok: false,
          error: 'protocol',
          message: `the SMTP exchange failed${said}`,
          retryable,
        };
    }
  }

  #redact(text: string): string {
    let result = text;
    for (const secret of this.#secrets) result = result.split(secret).join('***');
    return result;
  }
}

/** The system call that failed, which says enough (`ECONNREFUSED`) and holds no secret. */
function socketReason(error: unknown): string {
  // nodemailer keeps the socket's own code (ECONNREFUSED, ENOTFOUND) as originalCode.
  const { originalCode, syscall } = (error ?? {}) as { originalCode?: unknown; syscall?: unknown };
  if (typeof originalCode === 'string' && /^E[A-Z]+$/.test(originalCode))
    return ` (${originalCode})`;
  return typeof syscall === 'string' && /^[a-z]+$/.test(syscall) ? ` (${syscall} failed)` : '';
}
