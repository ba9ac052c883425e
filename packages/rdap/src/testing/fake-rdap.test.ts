import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeRdap, type FakeRdap } from './fake-rdap';

let fake: FakeRdap;
beforeAll(async () => {
  fake = await startFakeRdap({ now: () => new Date('2026-06-01T00:00:00Z') });
});
afterAll(async () => {
  await fake.close();
});

async function get(
  url: string,
): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers: { accept: 'application/rdap+json' } });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as Record<string, unknown>,
  };
}
const actions = (body: Record<string, unknown>) =>
  (body.events as { eventAction: string }[]).map((event) => event.eventAction);
const roles = (body: Record<string, unknown>) =>
  (body.entities as { roles: string[] }[]).map((entity) => entity.roles.join());

describe('startFakeRdap', () => {
  it('serves a bootstrap naming its three registries', async () => {
    const { body } = await get(fake.bootstrapUrl);
    expect(body.version).toBe('1.0');
    expect(body.services).toEqual([
      [['com', 'net'], [fake.servers.thin]],
      [['org'], [fake.servers.thick]],
      [['uk'], [fake.servers.cctld]],
    ]);
  });

  it('answers like a thin registry for .com', async () => {
    fake.set('shape.com', { registrar: { name: 'Registrar A', ianaId: 1 } });
    const { status, type, body } = await get(`${fake.servers.thin}domain/shape.com`);
    expect([status, type]).toEqual([200, 'application/rdap+json']);
    expect(body.ldhName).toBe('SHAPE.COM');
    expect(body.handle).toMatch(/^\d+_DOMAIN_COM-VRSN$/);
    expect(actions(body)).toEqual([
      'registration',
      'expiration',
      'last changed',
      'last update of RDAP database',
    ]);
    expect(roles(body)).toEqual(['registrar']);
    expect((body.entities as { publicIds: unknown }[])[0]!.publicIds).toEqual([
      { type: 'IANA Registrar ID', identifier: '1' },
    ]);
    expect((body.notices as { title: string }[]).map((notice) => notice.title)).toEqual([
      'Terms of Use',
      'Status Codes',
      'RDDS Inaccuracy Complaint Form',
    ]);
    expect(body.nameservers).toEqual([
      { objectClassName: 'nameserver', ldhName: 'NS1.SHAPE.COM' },
      { objectClassName: 'nameserver', ldhName: 'NS2.SHAPE.COM' },
    ]);
  });

  it('answers like a thick registry for .org, the registrant redacted', async () => {
    fake.set('shape.org', {
      events: [{ eventAction: 'deletion', eventDate: '2026-05-01T00:00:00Z' }],
    });
    const { body } = await get(`${fake.servers.thick}domain/shape.org`);
    expect(body.ldhName).toBe('shape.org');
    expect(roles(body)).toEqual(['registrar', 'registrant', 'technical']);
    expect(actions(body)).toEqual([
      'registration',
      'expiration',
      'last changed',
      'transfer',
      'deletion',
      'last update of RDAP database',
    ]);
    expect(body.rdapConformance).toContain('redacted');
    expect((body.redacted as { name: { type: string } }[]).map((entry) => entry.name.type)).toEqual(
      ['Registrant Name', 'Tech Name'],
    );
  });

  it('answers like a ccTLD for .uk: no registrar, no dates but last changed', async () => {
    fake.set('shape.uk', { updatedAt: new Date('2026-01-01T00:00:00Z') });
    const { body } = await get(`${fake.servers.cctld}domain/shape.uk`);
    expect(Object.keys(body).sort()).toEqual([
      'events',
      'handle',
      'ldhName',
      'links',
      'nameservers',
      'objectClassName',
      'rdapConformance',
      'status',
    ]);
    expect(body.events).toEqual([
      { eventAction: 'last changed', eventDate: '2026-01-01T00:00:00.000Z' },
    ]);
  });

  it('answers 404 for a removed name, and counts requests and the most in flight', async () => {
    fake.resetCounts();
    fake.set('gone.org');
    fake.remove('gone.org');
    const { status, body } = await get(`${fake.servers.thick}domain/gone.org`);
    expect([status, body.errorCode]).toEqual([404, 404]);
    fake.behave('thick', { kind: 'slow', delayMs: 100 });
    await Promise.all([1, 2, 3].map(() => get(`${fake.servers.thick}domain/gone.org`)));
    fake.behave('thick', { kind: 'normal' });
    expect(fake.requests('thick').map((request) => request.path)).toEqual(
      Array(4).fill('/rdap/domain/gone.org'),
    );
    expect(fake.maxConcurrent('thick')).toBe(3);
  });

  it('answers 429 with the Retry-After it is given', async () => {
    fake.behave('cctld', { kind: 'status', status: 429, retryAfter: '7' });
    const response = await fetch(`${fake.servers.cctld}domain/any.uk`);
    fake.behave('cctld', { kind: 'normal' });
    expect([response.status, response.headers.get('retry-after')]).toEqual([429, '7']);
  });
});
