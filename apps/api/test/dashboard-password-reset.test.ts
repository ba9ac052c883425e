import { randomBytes } from 'node:crypto';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, disableAccount, issueLink } from '@domain-index/accounts/account-store';
import { systemClock } from '@domain-index/runtime/clock';
import { Mailer } from '@domain-index/mail/mailer';
import { DashboardClient, listRows } from '@domain-index/test-support/dashboard-client';
import { startSmtpSink, type SmtpSink } from '@domain-index/test-support/smtp-sink-process';
import { startApi, type RunningApi } from './support/start-api';

const SMTP_USER = 'dashboard@relay.test';
const SMTP_PASSWORD = 'relay password 1';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new pass phrase';
const text = (response: Response) => response.text();

describe('"forgot password"', () => {
  let sink: SmtpSink;
  let mailer: Mailer;
  let api: RunningApi;
  let noMail: RunningApi;
  let addresses = 0;
  /** A browser of its own address, so that the limits of one test are not another's. */
  const visitor = (on: RunningApi = api) =>
    new DashboardClient(on.baseUrl, `198.18.90.${(addresses += 1)}`);

  beforeAll(async () => {
    sink = await startSmtpSink({ user: SMTP_USER, password: SMTP_PASSWORD });
    mailer = new Mailer({
      smtp: {
        host: '127.0.0.1',
        port: sink.port,
        secure: false,
        user: SMTP_USER,
        password: SMTP_PASSWORD,
      },
      from: 'Domain Index <dashboard@example.com>',
    });
    api = await startApi('pglite', {
      dashboard: { mailer },
      overrides: { trustProxy: ['loopback'] },
    });
    noMail = await startApi('pglite', { test: api.test, dashboard: {} });
  });
  afterAll(async () => {
    await noMail?.close();
    await api?.close();
    mailer?.close();
    await sink?.stop();
  });

  /** An account whose owner has set a password; returns its email. */
  async function account(): Promise<{ email: string; id: string }> {
    const email = `reset-${randomBytes(4).toString('hex')}@example.com`;
    const created = await createAccount(api.test.database, {
      email,
      planId: 'free',
      at: systemClock.now(),
    });
    const token = await issueLink(api.test.database, created.id, systemClock.now());
    expect(
      (await visitor().post(`/dashboard/set-password/${token}`, { password: PASSWORD })).status,
    ).toBe(303);
    return { email, id: created.id };
  }

  /** The mail at `index`, once it has arrived, and the one link in it. */
  async function mailAt(index: number): Promise<{ mail: ParsedMail; link: string }> {
    await sink.waitForMessages(index + 1);
    const mail = await simpleParser(sink.messages[index]!.raw);
    const links = [
      ...(mail.text ?? '').matchAll(
        /http:\/\/127\.0\.0\.1:\d+\/dashboard\/set-password\/[\w-]{43}/g,
      ),
    ].map((match) => match[0]);
    expect(links).toHaveLength(1);
    return { mail, link: links[0]! };
  }

  it('mails a one-time link that sets a new password, then offers the sign-in page when the link is used again', async () => {
    const { email } = await account();
    const browser = visitor();
    const signIn = await text(await browser.get('/dashboard/sign-in'));
    expect(signIn).toContain('<a href="/dashboard/forgot-password">Forgot your password?</a>');
    expect(await text(await browser.get('/dashboard/forgot-password'))).toContain('Send me a link');
    const before = sink.messages.length;
    const asked = await browser.post('/dashboard/forgot-password', { email: email.toUpperCase() });
    expect(asked.status).toBe(303);
    expect(asked.headers.get('location')).toBe('/dashboard/sign-in?notice=reset-sent');
    expect(await text(await browser.follow(asked))).toContain(
      'If that email has an account, a link that sets a new password is on its way to it.',
    );
    const { mail, link } = await mailAt(before);
    expect(mail.to).toMatchObject({ value: [{ address: email }] });
    expect(mail.from).toMatchObject({
      value: [{ address: 'dashboard@example.com', name: 'Domain Index' }],
    });
    expect(mail.subject).toBe('Set a new Domain Index password');
    expect(mail.html).toContain(`<a href="${link}">Set a new password</a>`);
    expect(new URL(link).origin).toBe(api.baseUrl);

    // the link sets the password and signs in; the old password no longer works
    const owner = visitor();
    expect((await owner.get(new URL(link).pathname)).status).toBe(200);
    const set = await owner.post(new URL(link).pathname, { password: NEW_PASSWORD });
    expect(set.status).toBe(303);
    expect(set.headers.get('location')).toBe('/dashboard/keys');
    expect((await visitor().post('/dashboard/sign-in', { email, password: PASSWORD })).status).toBe(
      401,
    );
    expect(
      (await visitor().post('/dashboard/sign-in', { email, password: NEW_PASSWORD })).status,
    ).toBe(303);
    // the audit log says a link was asked for and mailed, from where
    const audit = listRows(await text(await owner.get('/dashboard/audit')));
    expect(audit.find((row) => row.Event === 'Password reset link requested')).toMatchObject({
      IP: browser.address,
      Detail: 'a one-time link was mailed to the account',
    });

    // the same link again: not a dead end, but the way to sign in (or to a new link)
    const used = await visitor().get(new URL(link).pathname);
    expect(used.status).toBe(410);
    const page = await text(used);
    expect(page).toContain('<a class="button" href="/dashboard/sign-in">Sign in</a>');
    expect(page).toContain(
      '<a class="button" href="/dashboard/forgot-password">Get a new link</a>',
    );
    expect(page).not.toContain('accounts reset-link');
  });

  it('answers an unknown email, a disabled account and a second request within 2 minutes exactly as a known one, and mails none of them', async () => {
    const { email } = await account();
    const disabled = await account();
    await disableAccount(api.test.database, disabled.id, systemClock.now());
    const first = sink.messages.length;
    const answers: { status: number; location: string | null; body: string }[] = [];
    const ask = async (asked: string) => {
      const response = await visitor().post('/dashboard/forgot-password', { email: asked });
      answers.push({
        status: response.status,
        location: response.headers.get('location'),
        body: await text(response),
      });
    };
    await ask(email);
    await sink.waitForMessages(first + 1);
    for (const asked of [
      `nobody-${randomBytes(4).toString('hex')}@example.com`,
      disabled.email,
      email,
    ])
      await ask(asked);
    expect(answers).toHaveLength(4);
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    // then a mail to a third account: it is the only one after the first
    const other = await account();
    expect(
      (await visitor().post('/dashboard/forgot-password', { email: other.email })).status,
    ).toBe(303);
    await sink.waitForMessages(first + 2);
    const recipients = sink.messages.slice(first).map((message) => message.to);
    expect(recipients).toEqual([[email], [other.email]]);
  });

  it('limits requests per client address, and refuses a malformed email with the form again', async () => {
    const address = '198.18.91.1';
    const statuses: number[] = [];
    for (let i = 0; i < 21; i += 1) {
      statuses.push(
        (
          await new DashboardClient(api.baseUrl, address).post('/dashboard/forgot-password', {
            email: `nobody-${i}@example.com`,
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 20).every((status) => status === 303)).toBe(true);
    expect(statuses[20]).toBe(429);
    const bad = await visitor().post('/dashboard/forgot-password', { email: 'not an address' });
    expect(bad.status).toBe(400);
    expect(await text(bad)).toContain('Enter an email address like name@example.com.');
  });

  it('says to ask the operator when the server sends no mail', async () => {
    const { email } = await account();
    const before = sink.messages.length;
    for (const response of [
      await visitor(noMail).get('/dashboard/forgot-password'),
      await visitor(noMail).post('/dashboard/forgot-password', { email }),
    ]) {
      expect(response.status).toBe(200);
      const page = await text(response);
      expect(page).toContain(
        'This server does not send mail, so it cannot send you a link. Ask your operator',
      );
      expect(page).toContain('<code>domain-index accounts reset-link &lt;your email&gt;</code>');
      expect(page).not.toContain('<form');
    }
    expect(sink.messages.length).toBe(before);
  });
});
