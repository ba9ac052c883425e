import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DomainIndexError, verifyWebhook, WebhookVerificationError, type WebhookFailure } from '../src';

// Signatures are made by the Standard Webhooks reference library, as any sender may use it:
// what it signs, verifyWebhook accepts; anything else it refuses with the reason.
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const SECRET = newSecret();
const BODY = JSON.stringify({ alert_id: 'alr_1', events: [{ object: 'event', id: 'evt_41', type: 'listing.added' }], note: 'prix ≤ 500 €' });
const SENT_AT = new Date('2026-11-21T12:00:00.000Z');

/** The headers of a request signed with each of `secrets` at `at`, as a sender rotating its secret sends them. */
function signed(body: string, secrets: readonly string[], at = SENT_AT, id = 'msg_2mP9xQ') {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}

/** The reason verifyWebhook refuses a request with, or 'accepted'. */
function outcome(run: () => unknown): WebhookFailure | 'accepted' {
  try {
    run();
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

const at = (offsetSeconds: number) => ({ now: new Date(SENT_AT.getTime() + offsetSeconds * 1000) });

describe('verifyWebhook', () => {
  it('accepts what the reference library signs, and returns the parsed body', () => {
    const headers = signed(BODY, [SECRET]);
    expect(verifyWebhook(BODY, headers, SECRET, at(0))).toEqual(JSON.parse(BODY));
    // both read a fresh request alike
    const fresh = signed(BODY, [SECRET], new Date());
    expect(verifyWebhook(BODY, fresh, SECRET)).toEqual(new Webhook(SECRET).verify(BODY, fresh));
    // as raw bytes (express.raw), with the headers in any case, in a Headers object, or as Node gives them
    expect(verifyWebhook(Buffer.from(BODY), headers, SECRET, at(0))).toEqual(JSON.parse(BODY));
    expect(verifyWebhook(new TextEncoder().encode(BODY), new Headers(headers), SECRET, at(0))).toEqual(JSON.parse(BODY));
    const shouting = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(outcome(() => verifyWebhook(BODY, shouting, SECRET, at(0)))).toBe('accepted');
    expect(outcome(() => verifyWebhook(BODY, { ...headers, 'webhook-signature': [headers['webhook-signature']] }, SECRET, at(0)))).toBe('accepted');
    // the secret without its prefix, as the reference library allows
    expect(outcome(() => verifyWebhook(BODY, headers, SECRET.slice('whsec_'.length), at(0)))).toBe('accepted');
  });

  it('refuses a tampered body, id or timestamp', () => {
    const headers = signed(BODY, [SECRET]);
    expect(outcome(() => verifyWebhook(BODY.replace('alr_1', 'alr_2'), headers, SECRET, at(0)))).toBe('no_matching_signature');
    expect(outcome(() => verifyWebhook(`${BODY} `, headers, SECRET, at(0)))).toBe('no_matching_signature');
    expect(outcome(() => verifyWebhook(BODY, { ...headers, 'webhook-id': 'msg_other' }, SECRET, at(0)))).toBe('no_matching_signature');
    const moved = String(Number(headers['webhook-timestamp']) + 1);
    expect(outcome(() => verifyWebhook(BODY, { ...headers, 'webhook-timestamp': moved }, SECRET, at(0)))).toBe('no_matching_signature');
  });

  it('refuses a wrong secret', () => {
    const headers = signed(BODY, [SECRET]);
    expect(outcome(() => verifyWebhook(BODY, headers, newSecret(), at(0)))).toBe('no_matching_signature');
  });

  it('refuses a timestamp outside the tolerance, either way, and takes a tolerance of its own', () => {
    const headers = signed(BODY, [SECRET]);
    // ten minutes old: a replay
    expect(outcome(() => verifyWebhook(BODY, headers, SECRET, at(600)))).toBe('timestamp_too_old');
    expect(outcome(() => verifyWebhook(BODY, headers, SECRET, at(300)))).toBe('accepted');
    expect(outcome(() => verifyWebhook(BODY, headers, SECRET, at(301)))).toBe('timestamp_too_old');
    expect(outcome(() => verifyWebhook(BODY, headers, SECRET, at(-301)))).toBe('timestamp_too_new');
    expect(outcome(() => verifyWebhook(BODY, headers, SECRET, { ...at(600), toleranceSeconds: 900 }))).toBe('accepted');
    // the clock of this machine by default
    expect(outcome(() => verifyWebhook(BODY, headers, SECRET))).toBe('timestamp_too_old');
    expect(outcome(() => verifyWebhook(BODY, signed(BODY, [SECRET], new Date()), SECRET))).toBe('accepted');
    expect(outcome(() => verifyWebhook(BODY, { ...headers, 'webhook-timestamp': '1763726400.5' }, SECRET, at(0)))).toBe('invalid_timestamp');
  });

  it('accepts either signature during a rotation, and either secret on the receiving side', () => {
    const previous = newSecret();
    // the sender signs with the new and the previous secret for a day
    const headers = signed(BODY, [SECRET, previous]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(outcome(() => verifyWebhook(BODY, headers, SECRET, at(0)))).toBe('accepted');
    expect(outcome(() => verifyWebhook(BODY, headers, previous, at(0)))).toBe('accepted');
    // a receiver that has not switched yet holds both
    expect(outcome(() => verifyWebhook(BODY, signed(BODY, [previous]), [SECRET, previous], at(0)))).toBe('accepted');
    expect(outcome(() => verifyWebhook(BODY, signed(BODY, [SECRET]), [newSecret(), newSecret()], at(0)))).toBe('no_matching_signature');
    // signatures of other versions are skipped, not misread
    const v2 = { ...headers, 'webhook-signature': headers['webhook-signature'].replaceAll('v1,', 'v2,') };
    expect(outcome(() => verifyWebhook(BODY, v2, SECRET, at(0)))).toBe('no_matching_signature');
  });

  it('refuses a request without its headers, with a typed error', () => {
    const headers = signed(BODY, [SECRET]);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _dropped, ...rest } = headers;
      expect(outcome(() => verifyWebhook(BODY, rest, SECRET, at(0))), name).toBe('missing_header');
      expect(outcome(() => verifyWebhook(BODY, { ...headers, [name]: '' }, SECRET, at(0))), name).toBe('missing_header');
    }
    const error = (() => {
      try {
        verifyWebhook(BODY, {}, SECRET);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toBeInstanceOf(DomainIndexError);
    expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'missing_header', status: undefined });
  });

  it('returns the body typed as a webhook of Domain Index, and refuses a signed body that is empty or not JSON', () => {
    const payload = JSON.stringify({ type: 'test', alert_id: 'alt_1', events: [] });
    const body = verifyWebhook(payload, signed(payload, [SECRET]), SECRET, at(0));
    expect(body).toEqual({ type: 'test', alert_id: 'alt_1', events: [] });
    expect(body.events).toHaveLength(0);
    expect(outcome(() => verifyWebhook('', signed('', [SECRET]), SECRET, at(0)))).toBe('invalid_payload');
    expect(outcome(() => verifyWebhook('not json', signed('not json', [SECRET]), SECRET, at(0)))).toBe('invalid_payload');
  });

  it('tells a misconfigured secret apart from a bad request', () => {
    const headers = signed(BODY, [SECRET]);
    expect(() => verifyWebhook(BODY, headers, 'whsec_not base64!', at(0))).toThrow(TypeError);
    expect(() => verifyWebhook(BODY, headers, [], at(0))).toThrow(TypeError);
  });
});
