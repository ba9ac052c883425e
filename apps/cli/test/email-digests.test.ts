import { Writable } from 'node:stream';
import type { Alert } from '@domain-index/contract';
import { accounts, alerts, digestRecipients, eq, migrateDatabase, sql } from '@domain-index/db';
import { createTestDatabase, type TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@domain-index/accounts/account-store';
import { sendConfirmations } from '@domain-index/alerts/digest-recipients';
import { sendDueDigests } from '@domain-index/worker/alerts/digests';
import { createKey } from '@domain-index/accounts/key-store';
import { systemClock, type Clock } from '@domain-index/runtime/clock';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { createLogger } from '@domain-index/runtime/logger';
import { loadConfig } from '@domain-index/config/config';
import { Mailer } from '@domain-index/mail/mailer';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { confirmDigestAddress } from './support/digest-addresses';
import { jsonlFeed } from '@domain-index/test-support/feeds';
import { startSmtpSink, type SmtpSink } from '@domain-index/test-support/smtp-sink-process';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const SOURCE: SourceConfig = { id: 'alpha', name: 'alpha', everyMinutes: 60, feed: 'alpha.jsonl', format: 'jsonl' };
const listing = (name: string, price: number) => ({ domain_name: name, status: 'auction', current_bid: price, auction_end_time: '2099-01-01T00:00:00.000Z', marketplace_url: `https://alpha.example/l/${name}` });
const silent = createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));
const MINUTE = 60_000;
const DAY = 86_400_000;

describe('email digests through a real SMTP server on loopback (PGlite)', () => {
  let test: TestDatabase;
  let api: RunningApi;
  let sink: SmtpSink;
  let mailer: Mailer;
  let secret: Buffer;
  /** Every listing the index has: a batch is the whole feed, so each one lists them all again. */
  const listed: ReturnType<typeof listing>[] = [listing('first.com', 1)];

  /** A batch that adds these listings to the index. */
  const add = async (...added: ReturnType<typeof listing>[]) => {
    listed.push(...added);
    await importBatch({ database: test.database, source: SOURCE, clock: systemClock, input: jsonlFeed(listed) });
  };
  /** An account with a key, its address as given. */
  const newAccount = async (email: string) => {
    const account = await createAccount(test.database, { email, planId: 'pro', at: new Date() });
    return (await createKey(test.database, { planId: 'pro', environment: 'live', accountId: account.id })).key;
  };
  const send = async (key: string, method: string, path: string, body?: unknown) =>
    api.raw(path, { method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const read = async (key: string, id: string) => (await (await send(key, 'GET', `/api/v1/alerts/${id}`)).json()) as Alert;
  const created = async (key: string, body: Record<string, unknown>) => {
    const response = await send(key, 'POST', '/api/v1/alerts', { query: 'type=listing.added&max_price=100', ...body });
    expect(response.status).toBe(201);
    return (await response.json()) as Alert;
  };
  /** The worker's settings at a time. */
  const settings = (clock: Clock = systemClock) => ({ mailer, clock, logger: silent, publicUrl: api.baseUrl, secret });
  /** A clock just past the end of an alert's current period (and `later` ms more). */
  const atDue = async (id: string, later = 0): Promise<Clock> => {
    const [row] = await test.database.db.select({ due: alerts.digestDueAt }).from(alerts).where(eq(alerts.id, id));
    return { now: () => new Date(row!.due!.getTime() + 1_000 + later) };
  };
  /** The mails that arrive, `count` of them, after the `seen` first. */
  const nextMails = async (seen: number, count = 1) => {
    await sink.waitForMessages(seen + count);
    return Promise.all(sink.messages.slice(seen, seen + count).map(async (message) => ({ to: message.to, raw: message.raw.toString(), mail: await simpleParser(message.raw) })));
  };
  const confirmationLinkOf = (text: string | undefined) => new RegExp(`Confirm it: (${api.baseUrl}/alerts/confirm-email/[\\w-]{43})\\n`).exec(text ?? '')?.[1];
  const unsubscribeLinkOf = (text: string | undefined) => /Stop these emails: (\S+)/.exec(text ?? '')?.[1];

  beforeAll(async () => {
    test = await createTestDatabase('pglite');
    // names resolve to a public address without a lookup: a webhook URL is only saved here
    const resolve = () => Promise.resolve([{ address: '93.184.215.14', family: 4 as const }]);
    api = await startApi('pglite', { test, sources: [SOURCE], overrides: { alerts: { digestsAvailable: true, resolve } } });
    sink = await startSmtpSink({ user: 'digest', password: 'p@ss word' });
    const { mail } = loadConfig({ SMTP_URL: `smtp://digest:${encodeURIComponent('p@ss word')}@127.0.0.1:${sink.port}`, SMTP_FROM: 'Domain Index <alerts@example.com>' });
    if (mail === undefined) throw new Error('no mailer');
    mailer = new Mailer({ ...mail, logger: silent });
    secret = await loadCursorSecret(test.database);
    await add();
  });
  afterAll(async () => {
    mailer.close();
    await sink.stop();
    await api.close();
    await test.dispose();
  });

  it('mails nothing before the address is confirmed; its confirmation link (a page, then its button) confirms it once; then one digest per period with the matches, and a working unsubscribe link', async () => {
    const key = await newAccount('investor@example.com');
    const alert = await created(key, { name: 'Under $100', email_digest: 'hourly' });
    expect(alert).toMatchObject({ email_digest: 'hourly', email_digest_status: 'pending_confirmation', webhook_url: null, webhook_state: 'none', webhook_secret: null });
    await add(listing('early-one.com', 10));
    // the first period ends before anyone confirmed: it passes without a digest
    expect(await sendDueDigests(test.database, settings(await atDue(alert.id)))).toBe(0);

    const seen = sink.messages.length;
    expect(await sendConfirmations(test.database, settings())).toBe(1);
    const [confirmation] = await nextMails(seen);
    expect(confirmation!.to).toEqual(['investor@example.com']);
    expect(confirmation!.mail.subject).toBe('Confirm this address for Domain Index alert digests');
    expect(confirmation!.mail.text).toContain('The link works for 7 days. Until it is clicked, no digest is sent here. If it was not you, ignore this email: nothing will be.');
    const link = confirmationLinkOf(confirmation!.mail.text)!;
    expect(link).toBeDefined();
    expect(confirmation!.mail.html).toContain(`<a href="${link}">Confirm this address</a>`);
    // asked once, mailed once
    expect(await sendConfirmations(test.database, settings())).toBe(0);

    // opening the link (as a mail scanner does) confirms nothing; its button does, once
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Send the email digests of Domain Index alerts to <b>investor@example.com</b>?');
    expect((await read(key, alert.id)).email_digest_status).toBe('pending_confirmation');
    const confirmed = await fetch(link, { method: 'POST' });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('<b>investor@example.com</b> is confirmed: the digests of its alerts are mailed to it from their next period on.');
    expect((await read(key, alert.id)).email_digest_status).toBe('confirmed');
    const again = await fetch(link, { method: 'POST' });
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('This confirmation link is not valid: it was already used, a newer one replaced it, or it was not copied whole. Nothing was confirmed.');

    await add(listing('cheap-one.com', 40), listing('cheap-two.com', 90), listing('too-dear.com', 5000));
    const due = await atDue(alert.id);
    const before = sink.messages.length;
    // before the period ends: nothing
    expect(await sendDueDigests(test.database, settings())).toBe(0);
    expect(await sendDueDigests(test.database, settings(due))).toBe(1);
    const [digest] = await nextMails(before);
    // the same period again: already sent
    expect(await sendDueDigests(test.database, settings(due))).toBe(0);
    expect(digest!.to).toEqual(['investor@example.com']);
    expect(digest!.mail.subject).toBe('2 matches for "Under $100" this hour');
    expect(digest!.mail.text).toContain('cheap-one.com (added) $40 on alpha');
    expect(digest!.mail.text).toContain('cheap-two.com (added) $90 on alpha');
    expect(digest!.mail.text).not.toContain('too-dear.com');
    // the matches of the period that passed unconfirmed are not mailed later
    expect(digest!.mail.text).not.toContain('early-one.com');
    expect(digest!.mail.html).toContain('<a href="https://alpha.example/l/cheap-one.com">cheap-one.com</a>');
    const unsubscribe = unsubscribeLinkOf(digest!.mail.text) ?? '';
    expect(unsubscribe).toMatch(new RegExp(`^${api.baseUrl}/alerts/unsubscribe/${alert.id}/[0-9a-z]+\\.[\\w-]+$`));
    // the same link, for one-click unsubscribe by the mail client (RFC 8058)
    expect(digest!.raw.replace(/\r\n[ \t]+/g, ' ')).toContain(`List-Unsubscribe: <${unsubscribe}>`);
    expect(digest!.raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');

    // the next period: nothing new matched, no mail
    expect(await sendDueDigests(test.database, settings(await atDue(alert.id, 3_600_000)))).toBe(0);
    expect(sink.messages).toHaveLength(before + 1);

    // the link: a page with a button (GET changes nothing), then the POST turns the digest off
    const prompt = await fetch(unsubscribe);
    expect(prompt.status).toBe(200);
    expect(await prompt.text()).toContain('Stop the hourly digest of the alert <b>Under $100</b>?');
    expect(await test.database.rows<{ email_digest: string }>(sql`select email_digest from alerts where id = ${alert.id}`)).toEqual([{ email_digest: 'hourly' }]);
    const done = await fetch(unsubscribe, { method: 'POST' });
    expect(await done.text()).toContain('You will receive no more digests of the alert <b>Under $100</b>.');
    expect(await test.database.rows<{ email_digest: string | null }>(sql`select email_digest from alerts where id = ${alert.id}`)).toEqual([{ email_digest: null }]);
    expect(await read(key, alert.id)).toMatchObject({ email_digest: null, email_digest_status: null });
    // a made-up token is refused, and says nothing of the alert
    const forged = await fetch(`${api.baseUrl}/alerts/unsubscribe/${alert.id}/forged-token`, { method: 'POST' });
    expect(forged.status).toBe(404);
    // neither link's token is in a log line
    const log = api.logLines.join('\n');
    expect(log).toContain('/alerts/confirm-email/[redacted]');
    expect(log).not.toContain(link.split('/').at(-1));
    expect(log).not.toContain(unsubscribe.split('.').at(-1));
  });

  it('an unsubscribe suppresses the address for every alert; setting the digest again mails a new link and nothing else until it is clicked; a link made before the unsubscribe lifts nothing', async () => {
    const key = await newAccount('suppressed@example.com');
    await confirmDigestAddress(test.database, 'suppressed@example.com');
    const first = await created(key, { name: 'First', email_digest: 'daily' });
    const second = await created(key, { name: 'Second', email_digest: 'daily' });
    expect([first.email_digest_status, second.email_digest_status]).toEqual(['confirmed', 'confirmed']);
    await add(listing('pair-one.com', 20));
    let seen = sink.messages.length;
    expect(await sendDueDigests(test.database, settings(await atDue(first.id)))).toBe(2);
    const digests = await nextMails(seen, 2);
    const linkOf = (name: string) => unsubscribeLinkOf(digests.find((entry) => entry.mail.subject?.includes(`"${name}"`))!.mail.text)!;
    const [firstLink, secondLink] = [linkOf('First'), linkOf('Second')];

    // the first alert's link: its digest off, and the address suppressed for the second one too
    const unsubscribed = await fetch(firstLink, { method: 'POST' });
    expect(await unsubscribed.text()).toContain('No digest of any other alert goes to this address either, until it is confirmed again');
    expect(await read(key, first.id)).toMatchObject({ email_digest: null, email_digest_status: null });
    expect(await read(key, second.id)).toMatchObject({ email_digest: 'daily', email_digest_status: 'unsubscribed' });
    await add(listing('pair-two.com', 30));
    expect(await sendDueDigests(test.database, settings(await atDue(second.id)))).toBe(0);

    // a PATCH that sets the digest again asks for a new link; it resumes nothing by itself
    const patched = await send(key, 'PATCH', `/api/v1/alerts/${first.id}`, { email_digest: 'daily' });
    expect(((await patched.json()) as Alert).email_digest_status).toBe('pending_confirmation');
    expect((await read(key, second.id)).email_digest_status).toBe('pending_confirmation');
    await add(listing('pair-three.com', 40));
    expect(await sendDueDigests(test.database, settings(await atDue(first.id)))).toBe(0);
    seen = sink.messages.length;
    expect(await sendConfirmations(test.database, settings())).toBe(1);
    const early = confirmationLinkOf((await nextMails(seen))[0]!.mail.text)!;

    // the second alert's link (from the digest before) suppresses the address again: the link
    // mailed before it is void, and only one made after it confirms the address
    expect((await fetch(secondLink, { method: 'POST' })).status).toBe(200);
    expect((await read(key, first.id)).email_digest_status).toBe('unsubscribed');
    expect((await fetch(early, { method: 'POST' })).status).toBe(404);
    expect((await read(key, first.id)).email_digest_status).toBe('unsubscribed');
    expect(await sendDueDigests(test.database, settings(await atDue(first.id)))).toBe(0);
    expect(await sendConfirmations(test.database, settings())).toBe(0);

    expect((await send(key, 'PATCH', `/api/v1/alerts/${first.id}`, { email_digest: 'hourly' })).status).toBe(200);
    seen = sink.messages.length;
    expect(await sendConfirmations(test.database, settings())).toBe(1);
    const fresh = confirmationLinkOf((await nextMails(seen))[0]!.mail.text)!;
    expect((await fetch(fresh, { method: 'POST' })).status).toBe(200);
    expect(await read(key, first.id)).toMatchObject({ email_digest: 'hourly', email_digest_status: 'confirmed' });
    await add(listing('pair-four.com', 50));
    seen = sink.messages.length;
    expect(await sendDueDigests(test.database, settings(await atDue(first.id)))).toBe(1);
    const [resumed] = await nextMails(seen);
    expect(resumed!.to).toEqual(['suppressed@example.com']);
    expect(resumed!.mail.text).toContain('pair-four.com');
  });

  it('mails one confirmation per address every 10 minutes however often a digest is set, a new link replaces the one before, and a link works for 7 days', async () => {
    const key = await newAccount('often@example.com');
    const alert = await created(key, { name: 'Often', email_digest: 'daily' });
    const start = Date.now();
    const at = (ms: number): Clock => ({ now: () => new Date(start + ms) });
    let seen = sink.messages.length;
    expect(await sendConfirmations(test.database, settings(at(0)))).toBe(1);
    const replaced = confirmationLinkOf((await nextMails(seen))[0]!.mail.text)!;
    for (const period of ['hourly', 'daily', 'hourly']) expect((await send(key, 'PATCH', `/api/v1/alerts/${alert.id}`, { email_digest: period })).status).toBe(200);
    await created(key, { name: 'Often too', email_digest: 'daily' });
    expect(await sendConfirmations(test.database, settings(at(5 * MINUTE)))).toBe(0);
    seen = sink.messages.length;
    expect(await sendConfirmations(test.database, settings(at(11 * MINUTE)))).toBe(1);
    const latest = confirmationLinkOf((await nextMails(seen))[0]!.mail.text)!;
    expect(sink.messages.slice(seen)).toHaveLength(1);
    expect((await fetch(replaced)).status).toBe(404);

    // eight days on, the link is a page saying what to do, and confirms nothing
    const later = await startApi('pglite', { test, clock: { now: () => new Date(Date.now() + 8 * DAY) } });
    const expired = await fetch(`${later.baseUrl}${new URL(latest).pathname}`, { method: 'POST' });
    expect(expired.status).toBe(410);
    const text = await expired.text();
    expect(text).toContain('Confirmation links work for 7 days, and this one is older. Nothing was confirmed.');
    expect(text).toContain('To get a new link, set the email digest of your alert again');
    await later.close();
    expect((await read(key, alert.id)).email_digest_status).toBe('pending_confirmation');
    expect((await fetch(latest, { method: 'POST' })).status).toBe(200);
    expect((await read(key, alert.id)).email_digest_status).toBe('confirmed');
  });

  it('answers the signing secret of a first webhook on a digest-only alert with Cache-Control: no-store', async () => {
    const key = await newAccount('hooked@example.com');
    const alert = await created(key, { name: 'Mail first', email_digest: 'daily' });
    const hooked = await send(key, 'PATCH', `/api/v1/alerts/${alert.id}`, { webhook_url: 'https://hooks.example.com/in' });
    expect(hooked.status).toBe(200);
    expect(((await hooked.json()) as { webhook_secret: string }).webhook_secret).toMatch(/^whsec_/);
    expect(hooked.headers.get('cache-control')).toBe('no-store');
  });

  it('asks for the confirmation of an address that a digest was set on by another path than the API, at its first period', async () => {
    await newAccount('elsewhere@example.com');
    // what the tests before asked for is mailed first
    const before = sink.messages.length;
    await sink.waitForMessages(before + (await sendConfirmations(test.database, settings())));
    const [account] = await test.database.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, 'elsewhere@example.com'));
    await test.database.db.insert(alerts).values({ id: 'alt_written_elsewhere', accountId: account!.id, name: 'elsewhere', query: {}, queryString: '', emailDigest: 'daily', emailTo: 'elsewhere@example.com', digestDueAt: new Date(), webhookPosition: 0, digestPosition: 0 });
    expect(await sendConfirmations(test.database, settings())).toBe(0);
    expect(await sendDueDigests(test.database, settings(await atDue('alt_written_elsewhere')))).toBe(0);
    const seen = sink.messages.length;
    expect(await sendConfirmations(test.database, settings())).toBe(1);
    expect((await nextMails(seen))[0]!.to).toEqual(['elsewhere@example.com']);
  });

  it('asks for a confirmation of every address that had a digest before the upgrade, and mails it', async () => {
    const old = await createTestDatabase('pglite');
    try {
      // the database as it was before migration 0018, with a digest set: 0018 and every later
      // migration undone (a migration added after 0028 must be undone here too)
      await old.database.db.execute(sql`drop statistics listings_name_trigrams_stx`);
      await old.database.db.execute(sql`alter table listings alter column has_hyphens set statistics -1`);
      await old.database.db.execute(sql`alter index listings_domain_name_bigrams_idx alter column 1 set statistics -1`);
      await old.database.db.execute(sql`drop statistics listings_name_terms_stx`);
      await old.database.db.execute(sql`drop statistics listings_auction_end_stx`);
      await old.database.db.execute(sql`drop statistics listings_status_bid_stx`);
      await old.database.db.execute(sql`drop function plan_without_workers()`);
      await old.database.db.execute(sql`drop statistics listings_not_ended_stx`);
      await old.database.db.execute(sql`drop table watchlist_domains, name_registrations, name_history`);
      await old.database.db.execute(sql`alter table listing_events drop column watchlist_id, drop column phase, drop column expected_drop_at`);
      await old.database.db.execute(sql`alter table plans drop column watch_limit, drop column rdap_refreshes_per_hour, drop column export_rows_max`);
      await old.database.db.execute(sql`drop index webhook_deliveries_pending_matches_idx`);
      await old.database.db.execute(sql`drop table digest_recipients`);
      await old.database.db.execute(sql`delete from drizzle.__drizzle_migrations where created_at in (select created_at from drizzle.__drizzle_migrations order by created_at desc limit 11)`);
      await old.database.db.insert(accounts).values({ id: 'acc_old', email: 'before@example.com', planId: 'pro' });
      const row = { accountId: 'acc_old', query: {}, queryString: 'type=listing.added', webhookPosition: 0, digestPosition: 0 };
      await old.database.db.insert(alerts).values([
        { ...row, id: 'alt_old_mail', name: 'mail', emailDigest: 'daily', emailTo: 'before@example.com', digestDueAt: new Date() },
        { ...row, id: 'alt_old_mail_too', name: 'mail too', emailDigest: 'hourly', emailTo: 'before@example.com', digestDueAt: new Date() },
        { ...row, id: 'alt_old_hook', name: 'hook', webhookUrl: 'https://hooks.example.com/x' },
      ]);
      // written with today's columns: the watchlist of 0021 goes after them
      await old.database.db.execute(sql`alter table alerts drop column watchlist_id`);
      await old.database.db.execute(sql`drop table watchlists`);
      expect(await migrateDatabase(old.database)).toEqual(['0018_digest_recipients', '0019_pending_matches_index', '0020_plan_limits_for_names_and_exports', '0021_names_and_watchlists', '0022_planner_statistics', '0023_plan_without_workers', '0024_range_statistics', '0025_auction_end_statistics', '0026_term_statistics', '0027_bigram_statistics', '0028_trigram_statistics']);
      const rows = await old.database.db.select().from(digestRecipients);
      expect(rows).toEqual([expect.objectContaining({ address: 'before@example.com', confirmedAt: null, suppressedAt: null, confirmRequestedAt: expect.any(Date) as Date })]);
      // no digest until it is confirmed; the worker mails the link
      expect(await sendDueDigests(old.database, { ...settings(), clock: { now: () => new Date(Date.now() + 2 * DAY) } })).toBe(0);
      const seen = sink.messages.length;
      expect(await sendConfirmations(old.database, settings())).toBe(1);
      const [mail] = await nextMails(seen);
      expect(mail!.to).toEqual(['before@example.com']);
    } finally {
      await old.dispose();
    }
  });
});
