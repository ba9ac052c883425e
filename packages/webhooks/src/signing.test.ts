import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  ROTATION_OVERLAP_MS,
  generateWebhookId,
  generateWebhookSecret,
  isWebhookSecret,
  signWebhook,
  signingSecrets,
} from './signing';

const body = JSON.stringify({
  alert_id: 'alr_1',
  data: [{ id: 'evt_1', type: 'listing.created' }],
});

/** What a receiver using the reference library does with our request. */
function verify(secret: string, payload: string, headers: object): unknown {
  return new Webhook(secret).verify(payload, headers as Record<string, string>);
}

describe('webhook signing secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes, different every time', () => {
    const secrets = Array.from({ length: 50 }, generateWebhookSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(isWebhookSecret(secret)).toBe(true);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it.each([
    ['no prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['too short (16 bytes)', `whsec_${Buffer.alloc(16, 1).toString('base64')}`],
    ['too long (65 bytes)', `whsec_${Buffer.alloc(65, 1).toString('base64')}`],
    ['not base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La-aSw'],
    ['empty', 'whsec_'],
  ])('refuses a malformed secret: %s', (_what, secret) => {
    expect(isWebhookSecret(secret)).toBe(false);
    expect(() =>
      signWebhook({ id: 'msg_1', timestamp: new Date(), body, secrets: [secret] }),
    ).toThrow('a webhook signing secret is malformed');
  });

  it('message ids are unique and fit a header', () => {
    const ids = Array.from({ length: 50 }, generateWebhookId);
    for (const id of ids) expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('signed webhook headers', () => {
  it("match the Standard Webhooks reference library's test vector", () => {
    const headers = signWebhook({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: new Date(1614265330 * 1000),
      body: '{"test": 2432232314}',
      secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    });
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('are the base64 HMAC-SHA256 of id.timestamp.body under the decoded secret', () => {
    const secret = generateWebhookSecret();
    const timestamp = new Date('2026-11-21T07:04:00.750Z');
    const headers = signWebhook({ id: 'msg_abc', timestamp, body, secrets: [secret] });
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`msg_abc.${Math.floor(timestamp.getTime() / 1000)}.${body}`)
      .digest('base64');
    expect(headers['webhook-timestamp']).toBe('1795244640');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('verify with the standardwebhooks package, which returns the parsed body', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({
      id: generateWebhookId(),
      timestamp: new Date(),
      body,
      secrets: [secret],
    });
    expect(verify(secret, body, headers)).toEqual(JSON.parse(body));
  });

  it('verify for a body with non-ASCII text, signed as its UTF-8 bytes', () => {
    const secret = generateWebhookSecret();
    const unicode = JSON.stringify({ name: 'café-€.ai', note: '名前' });
    const headers = signWebhook({
      id: 'msg_u',
      timestamp: new Date(),
      body: unicode,
      secrets: [secret],
    });
    expect(verify(secret, Buffer.from(unicode, 'utf8').toString(), headers)).toEqual(
      JSON.parse(unicode),
    );
  });

  it('fail verification when the body was tampered with', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ id: 'msg_t', timestamp: new Date(), body, secrets: [secret] });
    const tampered = body.replace('evt_1', 'evt_2');
    expect(() => verify(secret, tampered, headers)).toThrow(
      new WebhookVerificationError('No matching signature found'),
    );
  });

  it('fail verification when the id or the timestamp header was changed', () => {
    const secret = generateWebhookSecret();
    const now = new Date();
    const headers = signWebhook({ id: 'msg_t', timestamp: now, body, secrets: [secret] });
    expect(() => verify(secret, body, { ...headers, 'webhook-id': 'msg_u' })).toThrow(
      'No matching signature found',
    );
    const oneSecondLater = String(Number(headers['webhook-timestamp']) + 1);
    expect(() => verify(secret, body, { ...headers, 'webhook-timestamp': oneSecondLater })).toThrow(
      'No matching signature found',
    );
  });

  it('fail verification when signed 10 minutes ago (replay window is 5 minutes)', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({
      id: 'msg_old',
      timestamp: new Date(Date.now() - 10 * 60_000),
      body,
      secrets: [secret],
    });
    expect(() => verify(secret, body, headers)).toThrow(
      new WebhookVerificationError('Message timestamp too old'),
    );
  });

  it('fail verification with a wrong secret', () => {
    const headers = signWebhook({
      id: 'msg_w',
      timestamp: new Date(),
      body,
      secrets: [generateWebhookSecret()],
    });
    expect(() => verify(generateWebhookSecret(), body, headers)).toThrow(
      'No matching signature found',
    );
  });

  it('carry one signature per active secret, so both verify during a rotation', () => {
    const previous = generateWebhookSecret();
    const current = generateWebhookSecret();
    const headers = signWebhook({
      id: 'msg_r',
      timestamp: new Date(),
      body,
      secrets: [current, previous],
    });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(previous, body, headers)).toEqual(JSON.parse(body));
    expect(verify(current, body, headers)).toEqual(JSON.parse(body));
    expect(() => verify(generateWebhookSecret(), body, headers)).toThrow(
      'No matching signature found',
    );
  });

  it.each(['', 'msg.1', 'msg 1', 'msg\r\nx-injected: 1', 'a'.repeat(129)])(
    'refuse the message id %j',
    (id) => {
      expect(() =>
        signWebhook({ id, timestamp: new Date(), body, secrets: [generateWebhookSecret()] }),
      ).toThrow('a webhook id is 1 to 128 letters, digits, "_" or "-"');
    },
  );

  it('need at least one secret', () => {
    expect(() => signWebhook({ id: 'msg_1', timestamp: new Date(), body, secrets: [] })).toThrow(
      'a webhook is signed with at least one secret',
    );
  });
});

describe('the secrets that sign after a rotation', () => {
  const rotatedAt = new Date('2026-11-21T00:00:00.000Z');
  const at = (ms: number) => new Date(rotatedAt.getTime() + ms);

  it.each([
    ['right after the rotation', 0, ['new', 'old']],
    ['a second before the overlap ends', ROTATION_OVERLAP_MS - 1000, ['new', 'old']],
    ['when the 24 h overlap ends', ROTATION_OVERLAP_MS, ['new']],
    ['a week later', 7 * ROTATION_OVERLAP_MS, ['new']],
  ])('%s', (_when, elapsed, expected) => {
    expect(
      signingSecrets({ current: 'new', previous: { secret: 'old', rotatedAt }, now: at(elapsed) }),
    ).toEqual(expected);
  });

  it('are the current one alone when there was no rotation', () => {
    expect(signingSecrets({ current: 'new', now: rotatedAt })).toEqual(['new']);
  });
});
