import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '@domain-index/test-support/waiting';
import { startSmtpSink, type SmtpSink } from '@domain-index/test-support/smtp-sink-process';
import { createLogger } from '@domain-index/runtime/logger';
import { loadConfig } from '@domain-index/config/config';
import { Mailer, mustUseTls, parseMailFrom, parseSmtpUrl } from '@domain-index/mail/mailer';

const USER = 'alerts@relay.test';
// Every character that needs percent-encoding in a URL, and some that do not.
const PASSWORD = 'p@ss:w/rd%+ é#?&=S3cr3t';
const smtpUrl = (port: number, password = PASSWORD) =>
  `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(password)}@127.0.0.1:${port}`;

/** Every form of the password that a careless message or log line could hold. */
const PASSWORD_FORMS = [
  PASSWORD,
  encodeURIComponent(PASSWORD),
  Buffer.from(PASSWORD).toString('base64'),
  'S3cr3t',
];

let sink: SmtpSink;
const logLines: string[] = [];
const logger = createLogger(
  'info',
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
);

beforeAll(async () => {
  sink = await startSmtpSink({ user: USER, password: PASSWORD });
});
afterAll(async () => {
  await sink.stop();
});

/** The mailer the configuration makes of these variables (loadConfig checks them as a start does). */
function mailerFor(env: { SMTP_URL: string; SMTP_FROM?: string }): Mailer {
  const { mail } = loadConfig({ SMTP_FROM: 'Domain Index <alerts@domain-index.test>', ...env });
  if (mail === undefined) throw new Error('no mailer');
  return new Mailer({ ...mail, logger });
}

async function received(index: number): Promise<ParsedMail> {
  await sink.waitForMessages(index + 1);
  return simpleParser(sink.messages[index]!.raw);
}

function expectNoPassword(text: string): void {
  for (const form of PASSWORD_FORMS) expect(text).not.toContain(form);
}

describe('sending mail through a real SMTP server', () => {
  it('delivers one message with its headers, text and HTML bodies, after logging in', async () => {
    const mailer = mailerFor({ SMTP_URL: smtpUrl(sink.port) });
    const before = sink.messages.length;
    const outcome = await mailer.send({
      to: 'Investor <investor@example.test>',
      subject: 'Alert “cheap .ai”: 3 new matches – café.ai',
      text: 'café.ai  $450  ends 2026-11-22 07:00 UTC\nhttps://marketplace.test/café.ai\n',
      html: '<p><a href="https://marketplace.test/caf%C3%A9.ai">café.ai</a> $450</p>',
      unsubscribeUrl: 'https://api.domain-index.test/alerts/unsubscribe?token=abc123',
    });
    mailer.close();
    expect(outcome).toMatchObject({
      ok: true,
      messageId: expect.stringMatching(/^<.+@.+>$/) as unknown,
    });
    const mail = await received(before);
    expect(sink.messages[before]).toMatchObject({
      user: USER,
      from: 'alerts@domain-index.test',
      to: ['investor@example.test'],
    });
    expect(mail.from?.value).toEqual([
      { name: 'Domain Index', address: 'alerts@domain-index.test' },
    ]);
    expect(mail.to).toMatchObject({ value: [{ address: 'investor@example.test', name: '' }] });
    expect(mail.subject).toBe('Alert “cheap .ai”: 3 new matches – café.ai');
    expect(mail.text).toBe(
      'café.ai  $450  ends 2026-11-22 07:00 UTC\nhttps://marketplace.test/café.ai\n',
    );
    expect(mail.html).toBe(
      '<p><a href="https://marketplace.test/caf%C3%A9.ai">café.ai</a> $450</p>',
    );
    expect(mail.messageId).toBe(outcome.ok ? outcome.messageId : '');
    // A header line as a reader sees it: a long one is folded onto several lines on the wire.
    const line = (name: string) =>
      mail.headerLines.find(({ key }) => key === name)?.line.replace(/\r?\n[ \t]+/g, ' ');
    expect(line('list-unsubscribe')).toBe(
      'List-Unsubscribe: <https://api.domain-index.test/alerts/unsubscribe?token=abc123>',
    );
    expect(line('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expectNoPassword(sink.messages[before]!.raw.toString('latin1'));
  });

  it('keeps a subject on one line: a name with a line break cannot add a header', async () => {
    const mailer = mailerFor({ SMTP_URL: smtpUrl(sink.port) });
    const before = sink.messages.length;
    const outcome = await mailer.send({
      to: 'investor@example.test',
      subject: 'Alert x\r\nBcc: victim@example.test',
      text: 't',
      html: '<p>t</p>',
    });
    mailer.close();
    expect(outcome.ok).toBe(true);
    const mail = await received(before);
    expect(mail.subject).toBe('Alert x Bcc: victim@example.test');
    expect(mail.bcc).toBeUndefined();
    expect(sink.messages[before]!.to).toEqual(['investor@example.test']);
  });

  it('refuses a recipient that is not one address, sending nothing', async () => {
    const mailer = mailerFor({ SMTP_URL: smtpUrl(sink.port) });
    const before = sink.messages.length;
    for (const to of ['not an address', 'a@example.test, b@example.test', '']) {
      expect(await mailer.send({ to, subject: 's', text: 't', html: 'h' })).toEqual({
        ok: false,
        error: 'invalid_message',
        message: 'the recipient is not one email address',
        retryable: false,
      });
    }
    mailer.close();
    expect(sink.messages).toHaveLength(before);
  });

  it('reports a refused login without the password anywhere: outcome, log, mailer', async () => {
    const wrong = `${PASSWORD}-wrong`;
    const mailer = mailerFor({ SMTP_URL: smtpUrl(sink.port, wrong) });
    const before = sink.messages.length;
    const logged = logLines.length;
    const outcome = await mailer.send({
      to: 'investor@example.test',
      subject: 's',
      text: 't',
      html: 'h',
    });
    mailer.close();
    expect(outcome).toMatchObject({ ok: false, error: 'auth', retryable: false });
    expect(!outcome.ok && outcome.message).toMatch(
      /^the SMTP server refused the login: the server said "535 .*Invalid username or password"$/,
    );
    await until('the sink records the refused login', () => sink.failedLogins.includes(USER));
    expect(sink.messages).toHaveLength(before);
    const texts = [
      JSON.stringify(outcome),
      ...logLines.slice(logged),
      JSON.stringify({ mailer }),
      inspect(mailer, { showHidden: true, depth: 10 }),
      String(mailer),
    ];
    expect(logLines.slice(logged).join('')).toContain(
      'mail not sent: the SMTP server refused the login',
    );
    for (const text of texts) {
      expectNoPassword(text);
      expect(text).not.toContain(encodeURIComponent(wrong));
    }
  });

  it('reports a server that cannot be reached as a retryable connection failure, without the password', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const logged = logLines.length;
    const mailer = mailerFor({ SMTP_URL: smtpUrl(port) });
    const outcome = await mailer.send({
      to: 'investor@example.test',
      subject: 's',
      text: 't',
      html: 'h',
    });
    mailer.close();
    expect(outcome).toEqual({
      ok: false,
      error: 'connection',
      message: 'could not talk to the SMTP server (ECONNREFUSED)',
      retryable: true,
    });
    for (const text of logLines.slice(logged)) expectNoPassword(text);
  });

  it('reports a server that never greets as a timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const parsed = parseSmtpUrl(smtpUrl(port));
    if (!parsed.ok) throw new Error(parsed.reason);
    const mailer = new Mailer({
      smtp: parsed.smtp,
      from: 'alerts@domain-index.test',
      timeoutMs: 300,
    });
    const outcome = await mailer.send({
      to: 'investor@example.test',
      subject: 's',
      text: 't',
      html: 'h',
    });
    mailer.close();
    silent.close();
    expect(outcome).toEqual({
      ok: false,
      error: 'timeout',
      message: 'the SMTP server did not answer in time',
      retryable: true,
    });
  });
});

describe('SMTP_URL', () => {
  it.each([
    [
      'smtp://smtp.example.test',
      { host: 'smtp.example.test', port: 587, secure: false, user: undefined, password: undefined },
    ],
    [
      'smtps://smtp.example.test',
      { host: 'smtp.example.test', port: 465, secure: true, user: undefined, password: undefined },
    ],
    [
      'smtp://u:p@smtp.example.test:2525/',
      { host: 'smtp.example.test', port: 2525, secure: false, user: 'u', password: 'p' },
    ],
    [
      'smtps://apikey:a%2Fb%40c@[::1]:465',
      { host: '::1', port: 465, secure: true, user: 'apikey', password: 'a/b@c' },
    ],
    [
      'smtp://only-user@127.0.0.1:25',
      { host: '127.0.0.1', port: 25, secure: false, user: 'only-user', password: undefined },
    ],
  ])('reads %s', (value, smtp) => {
    expect(parseSmtpUrl(value)).toEqual({ ok: true, smtp });
  });

  const form =
    'must be a URL like smtps://user:password@smtp.example.com or smtp://smtp.example.com:587';
  it.each([
    ['not a url', form],
    ['https://smtp.example.test', form],
    ['smtp://', `${form} (the host is missing)`],
    ['smtp://u:p@smtp.example.test/path', `${form} (no path or query)`],
    ['smtp://u:p@smtp.example.test?secure=false', `${form} (no path or query)`],
    [
      'smtp://u:%E0%A4%A@smtp.example.test',
      `${form} (the user or password is not correctly percent-encoded)`,
    ],
    ['smtp://:secret@smtp.example.test', `${form} (a password needs a user)`],
  ])('refuses %j without repeating it', (value, reason) => {
    const parsed = parseSmtpUrl(value);
    expect(parsed).toEqual({ ok: false, reason });
  });

  it('is required with credentials to be TLS (smtps or STARTTLS) unless the server is on loopback', () => {
    const settings = (url: string) => {
      const parsed = parseSmtpUrl(url);
      if (!parsed.ok) throw new Error(parsed.reason);
      return parsed.smtp;
    };
    expect(mustUseTls(settings('smtp://u:p@smtp.example.test'))).toBe(true);
    expect(mustUseTls(settings('smtp://smtp.example.test'))).toBe(false); // no credentials to protect
    expect(mustUseTls(settings('smtps://u:p@smtp.example.test'))).toBe(false); // TLS from the first byte already
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '[::1]'])
      expect(mustUseTls(settings(`smtp://u:p@${host}:25`))).toBe(false);
    expect(mustUseTls(settings('smtp://u:p@10.0.0.5:25'))).toBe(true);
  });
});

describe('SMTP_FROM', () => {
  it.each([
    'alerts@example.test',
    'Domain Index <alerts@example.test>',
    '"Domain Index, alerts" <alerts@example.test>',
    '  alerts@example.test ',
  ])('accepts %j', (value) => {
    expect(parseMailFrom(value)).toEqual({ ok: true, from: value.trim() });
  });

  it.each([
    '',
    'alerts',
    'alerts@',
    'a@example.test, b@example.test',
    'Domain Index',
    'alerts@example.test\r\nBcc: x@example.test',
  ])('refuses %j', (value) => {
    expect(parseMailFrom(value)).toEqual({
      ok: false,
      reason:
        'must be one email address, like alerts@example.com or "Domain Index <alerts@example.com>"',
    });
  });
});

