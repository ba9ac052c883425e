import { describe, expect, it } from 'vitest';
import { BootstrapTable, parseBootstrapFile, shippedBootstrap } from './bootstrap';

const file = (services: unknown) => ({
  version: '1.0',
  publication: '2026-01-02T03:04:05Z',
  description: 'test',
  services,
});

describe('BootstrapTable', () => {
  const table = new BootstrapTable(
    parseBootstrapFile(
      file([
        [['uk'], ['https://rdap.uk.example/uk/']],
        [['co.uk', 'org.uk'], ['https://rdap.co-uk.example/']],
        [
          ['COM', 'net'],
          ['http://rdap.com.example/com/v1/', 'https://rdap.com.example/com/v1/'],
        ],
        [['example'], ['http://127.0.0.1:4100/']],
      ]),
    ),
  );

  it.each([
    ['example.co.uk', 'https://rdap.co-uk.example/'],
    ['a.b.example.co.uk', 'https://rdap.co-uk.example/'],
    ['example.org.uk', 'https://rdap.co-uk.example/'],
    ['example.uk', 'https://rdap.uk.example/uk/'],
    ['example.me.uk', 'https://rdap.uk.example/uk/'],
    ['EXAMPLE.COM', 'https://rdap.com.example/com/v1/'],
    ['example.net.', 'https://rdap.com.example/com/v1/'],
    ['name.example', 'http://127.0.0.1:4100/'],
  ])('the longest matching label sequence names %s to %s', (domain, server) => {
    expect(table.serverFor(domain)).toBe(server);
  });

  it('names no server for a TLD it does not list', () => {
    expect(table.serverFor('example.de')).toBeNull();
    expect(table.serverFor('couk')).toBeNull();
  });
});

describe('parseBootstrapFile', () => {
  it.each([
    [
      'a services entry without URLs',
      file([[['com'], []]]),
      'malformed RDAP bootstrap file: services.0.1: Array must contain at least 1 element(s)',
    ],
    [
      'a base URL that is not http(s)',
      file([[['com'], ['ftp://rdap.example/']]]),
      'malformed RDAP bootstrap file: services.0.1.0: a base URL must be http or https',
    ],
    [
      'a missing publication',
      { version: '1.0', services: [] },
      'malformed RDAP bootstrap file: publication: Required',
    ],
    [
      'another version',
      { ...file([]), version: '2.0' },
      'malformed RDAP bootstrap file: version: Invalid literal value, expected "1.0"',
    ],
    ['an array', [], 'malformed RDAP bootstrap file: the file: Expected object, received array'],
    [
      'labels as a string',
      file([['com', ['https://rdap.example/']]]),
      'malformed RDAP bootstrap file: services.0.0: Expected array, received string',
    ],
  ])('refuses %s with a line saying where', (_name, value, message) => {
    expect(() => parseBootstrapFile(value)).toThrow(new Error(message));
  });

  it('accepts the shipped copy of IANA’s file, which names .com and .org but not .de', () => {
    const table = new BootstrapTable(shippedBootstrap());
    expect(table.publication.toISOString()).toBe('2025-11-06T23:00:01.000Z');
    expect(table.serverFor('example.com')).toBe('https://rdap.verisign.com/com/v1/');
    expect(table.serverFor('example.org')).toBe('https://rdap.publicinterestregistry.org/rdap/');
    expect(table.serverFor('example.de')).toBeNull();
    expect(table.size).toBeGreaterThan(1000);
  });
});
