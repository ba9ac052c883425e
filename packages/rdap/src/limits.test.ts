import { describe, expect, it } from 'vitest';
import { DEFAULT_HOST_LIMITS, limitsFor, parseRdapLimits } from './limits';

describe('parseRdapLimits', () => {
  it('reads hosts, host:port and the * entry', () => {
    const limits = parseRdapLimits(' rdap.verisign.com=4/600, 127.0.0.1:4100 = 1 / 60,*=2/120 ');
    expect([...limits.hosts]).toEqual([
      ['rdap.verisign.com', { concurrency: 4, perMinute: 600 }],
      ['127.0.0.1:4100', { concurrency: 1, perMinute: 60 }],
    ]);
    expect(limits.fallback).toEqual({ concurrency: 2, perMinute: 120 });
  });

  it('gives the defaults for empty text and for a list without *', () => {
    expect(parseRdapLimits('')).toEqual({ hosts: new Map(), fallback: DEFAULT_HOST_LIMITS });
    expect(parseRdapLimits('RDAP.Example.org=3/30').fallback).toEqual(DEFAULT_HOST_LIMITS);
  });

  const format =
    '(format: host[:port]=concurrency/perMinute, e.g. rdap.verisign.com=4/600, separated by commas; * for every other host)';
  const errors: [string, string][] = [
    ['rdap.verisign.com=4/600,', 'entry "" is empty: remove the extra comma'],
    [
      'rdap.verisign.com=4',
      'entry "rdap.verisign.com=4" is not host[:port]=concurrency/perMinute with whole numbers',
    ],
    [
      'rdap.verisign.com 4/600',
      'entry "rdap.verisign.com 4/600" is not host[:port]=concurrency/perMinute with whole numbers',
    ],
    [
      'a.example=1.5/60',
      'entry "a.example=1.5/60" is not host[:port]=concurrency/perMinute with whole numbers',
    ],
    [
      'https://a.example=1/60',
      'entry "https://a.example=1/60" has a host "https://a.example" that is not a DNS name or IPv4 address',
    ],
    [
      'a_b.example=1/60',
      'entry "a_b.example=1/60" has a host "a_b.example" that is not a DNS name or IPv4 address',
    ],
    ['127.0.0.1:0=1/60', 'entry "127.0.0.1:0=1/60" has a port "0" that is not 1 to 65535'],
    [
      '127.0.0.1:70000=1/60',
      'entry "127.0.0.1:70000=1/60" has a port "70000" that is not 1 to 65535',
    ],
    ['a.example=0/60', 'entry "a.example=0/60" asks for concurrency 0: use 1 to 64'],
    ['a.example=65/60', 'entry "a.example=65/60" asks for concurrency 65: use 1 to 64'],
    ['a.example=1/0', 'entry "a.example=1/0" asks for 0 requests a minute: use 1 to 6000'],
    [
      'a.example=1/60000',
      'entry "a.example=1/60000" asks for 60000 requests a minute: use 1 to 6000',
    ],
    [
      'a.example=1/60,A.example=2/60',
      'entry "A.example=2/60" names A.example a second time: keep one entry per host',
    ],
    ['*=1/60,*=2/60', 'entry "*=2/60" names * a second time: keep one entry per host'],
  ];
  it.each(errors)('rejects %j naming the entry', (text, message) => {
    expect(() => parseRdapLimits(text)).toThrow(new Error(`RDAP_LIMITS: ${message} ${format}`));
  });
});

describe('limitsFor', () => {
  const limits = parseRdapLimits('rdap.example=4/600,127.0.0.1:4100=1/30,127.0.0.1=3/90,*=2/120');
  it.each([
    ['https://rdap.example/com/v1/', { concurrency: 4, perMinute: 600 }],
    ['https://RDAP.EXAMPLE/', { concurrency: 4, perMinute: 600 }],
    ['http://127.0.0.1:4100/rdap/', { concurrency: 1, perMinute: 30 }],
    ['http://127.0.0.1:4200/', { concurrency: 3, perMinute: 90 }],
    ['127.0.0.1:4100', { concurrency: 1, perMinute: 30 }],
    ['https://other.example/', { concurrency: 2, perMinute: 120 }],
  ])('gives %s its entry', (server, expected) => {
    expect(limitsFor(limits, server)).toEqual(expected);
  });
});
