import { describe, expect, it } from 'vitest';
import { parseDomainObject } from './domain-object';

describe('parseDomainObject', () => {
  it('reads a minimal object: missing members are null, unknown ones ignored', () => {
    expect(
      parseDomainObject(
        { objectClassName: 'domain', ldhName: 'example.uk', somethingNew: { a: 1 } },
        'example.uk',
      ),
    ).toEqual({
      phase: 'registered',
      statuses: [],
      registrar: null,
      createdAt: null,
      expiresAt: null,
      updatedAt: null,
      expectedDropAt: null,
    });
  });

  it('keeps status values as given, takes the latest of repeated events, skips unreadable ones', () => {
    const registration = parseDomainObject(
      {
        objectClassName: 'domain',
        ldhName: 'EXAMPLE.COM.',
        status: ['redemptionPeriod', 'pendingDelete', 42],
        events: [
          { eventAction: 'registration', eventDate: '2001-01-01T00:00:00Z' },
          { eventAction: 'registration', eventDate: '2020-05-05T00:00:00Z' },
          { eventAction: 'expiration', eventDate: 'not a date' },
          { eventAction: 'last changed', eventDate: '2026-02-01T00:00:00Z' },
          { eventDate: '2026-02-02T00:00:00Z' },
          'junk',
        ],
        entities: [
          { roles: ['registrant'], vcardArray: ['vcard', [['fn', {}, 'text', 'Someone']]] },
          {
            roles: ['registrar'],
            publicIds: [{ type: 'IANA Registrar ID', identifier: 'not a number' }],
          },
        ],
      },
      'example.com',
    );
    expect(registration).toEqual({
      phase: 'redemption',
      statuses: ['redemptionPeriod', 'pendingDelete'],
      registrar: { name: null, ianaId: null },
      createdAt: new Date('2020-05-05T00:00:00Z'),
      expiresAt: null,
      updatedAt: new Date('2026-02-01T00:00:00Z'),
      expectedDropAt: new Date('2026-03-08T00:00:00Z'),
    });
  });

  it('reads the registrar from its vCard fn and its IANA Registrar ID, as a number or a string', () => {
    const registrar = (ianaId: unknown) =>
      parseDomainObject(
        {
          objectClassName: 'domain',
          ldhName: 'example.org',
          entities: [
            {
              roles: ['technical', 'registrar'],
              publicIds: [{ type: 'IANA Registrar ID', identifier: ianaId }],
              vcardArray: [
                'vcard',
                [
                  ['version', {}, 'text', '4.0'],
                  ['fn', {}, 'text', ' Registrar Ltd '],
                ],
              ],
            },
          ],
        },
        'example.org',
      ).registrar;
    expect(registrar('292')).toEqual({ name: 'Registrar Ltd', ianaId: 292 });
    expect(registrar(1068)).toEqual({ name: 'Registrar Ltd', ianaId: 1068 });
  });

  it.each([
    ['an array', [], 'not a JSON object'],
    [
      'an entity',
      { objectClassName: 'entity', ldhName: 'example.com' },
      'objectClassName is "entity", not "domain"',
    ],
    ['no objectClassName', { ldhName: 'example.com' }, 'objectClassName is null, not "domain"'],
    [
      'another name',
      { objectClassName: 'domain', ldhName: 'example.net' },
      'ldhName "example.net" is not the name asked for (example.com)',
    ],
    [
      'no ldhName',
      { objectClassName: 'domain' },
      'ldhName null is not the name asked for (example.com)',
    ],
  ])('refuses %s', (_name, body, message) => {
    expect(() => parseDomainObject(body, 'example.com')).toThrow(new Error(message));
  });
});
