import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_ALLOW_LIST,
  decideDestination,
  isAddressAllowListed,
  isHostAllowListed,
  judgeAddress,
  parseAllowedHosts,
  type AllowList,
  type RefusedCategory,
} from './address-rules';

// Pure rules: nothing here resolves a name or opens a connection.

describe('IPv4 addresses the rules refuse', () => {
  it.each<[string, RefusedCategory, string]>([
    ['0.0.0.0', 'unspecified', '0.0.0.0/8'],
    ['0.255.255.255', 'unspecified', '0.0.0.0/8'],
    ['10.0.0.0', 'private', '10.0.0.0/8'],
    ['10.0.0.1', 'private', '10.0.0.0/8'],
    ['10.255.255.255', 'private', '10.0.0.0/8'],
    ['100.64.0.0', 'carrier_grade_nat', '100.64.0.0/10'],
    ['100.127.255.255', 'carrier_grade_nat', '100.64.0.0/10'],
    ['127.0.0.1', 'loopback', '127.0.0.0/8'],
    ['127.0.0.2', 'loopback', '127.0.0.0/8'],
    ['127.255.255.255', 'loopback', '127.0.0.0/8'],
    ['169.254.0.1', 'link_local', '169.254.0.0/16'],
    ['169.254.169.254', 'link_local', '169.254.0.0/16'],
    ['169.254.255.255', 'link_local', '169.254.0.0/16'],
    ['172.16.0.0', 'private', '172.16.0.0/12'],
    ['172.31.255.255', 'private', '172.16.0.0/12'],
    ['192.0.0.0', 'reserved', '192.0.0.0/24'],
    ['192.0.0.170', 'reserved', '192.0.0.0/24'],
    ['192.0.2.1', 'documentation', '192.0.2.0/24'],
    ['192.88.99.1', 'reserved', '192.88.99.0/24'],
    ['192.168.0.1', 'private', '192.168.0.0/16'],
    ['192.168.255.255', 'private', '192.168.0.0/16'],
    ['198.18.0.0', 'benchmarking', '198.18.0.0/15'],
    ['198.19.255.255', 'benchmarking', '198.18.0.0/15'],
    ['198.51.100.7', 'documentation', '198.51.100.0/24'],
    ['203.0.113.200', 'documentation', '203.0.113.0/24'],
    ['224.0.0.1', 'multicast', '224.0.0.0/4'],
    ['239.255.255.250', 'multicast', '224.0.0.0/4'],
    ['240.0.0.1', 'reserved', '240.0.0.0/4'],
    ['255.255.255.254', 'reserved', '240.0.0.0/4'],
    ['255.255.255.255', 'broadcast', '255.255.255.255/32'],
  ])('%s is %s (%s)', (address, category, range) => {
    expect(judgeAddress(address)).toEqual({ refused: true, category, range });
  });
});

describe('IPv4 addresses the rules let through: the public internet, and the edges of each range', () => {
  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.215.14',
    '1.0.0.0',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.0',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '198.51.99.255',
    '203.0.112.255',
    '223.255.255.255',
  ])('%s', (address) => {
    expect(judgeAddress(address)).toEqual({ refused: false });
  });
});

describe('IPv6 addresses the rules refuse', () => {
  it.each<[string, RefusedCategory, string]>([
    ['::', 'unspecified', '::/128'],
    ['::1', 'loopback', '::1/128'],
    ['0:0:0:0:0:0:0:1', 'loopback', '::1/128'],
    ['[::1]', 'loopback', '::1/128'],
    ['fc00::1', 'private', 'fc00::/7'],
    ['fd12:3456:789a::1', 'private', 'fc00::/7'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private', 'fc00::/7'],
    ['fec0::1', 'private', 'fec0::/10'],
    ['fe80::1', 'link_local', 'fe80::/10'],
    ['fe80::1%eth0', 'link_local', 'fe80::/10'],
    ['febf:ffff::1', 'link_local', 'fe80::/10'],
    ['ff02::1', 'multicast', 'ff00::/8'],
    ['ff05::1:3', 'multicast', 'ff00::/8'],
    ['64:ff9b:1::a00:1', 'private', '64:ff9b:1::/48'],
    ['2001:db8::1', 'documentation', '2001:db8::/32'],
    ['3fff::1', 'documentation', '3fff::/20'],
    ['2001:2::1', 'benchmarking', '2001:2::/48'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved', '2001::/23'], // Teredo
    ['2001:1::1', 'reserved', '2001::/23'],
    ['2002:7f00:1::1', 'reserved', '2002::/16'], // 6to4 wrapping 127.0.0.1
    ['2002:808:808::1', 'reserved', '2002::/16'], // 6to4 wrapping 8.8.8.8
    ['100::1', 'reserved', 'outside 2000::/3'], // discard-only
    ['1::1', 'reserved', 'outside 2000::/3'],
    ['4000::1', 'reserved', 'outside 2000::/3'],
    ['5f00::1', 'reserved', 'outside 2000::/3'], // SRv6 SIDs
    ['e000::1', 'reserved', 'outside 2000::/3'],
  ])('%s is %s (%s)', (address, category, range) => {
    expect(judgeAddress(address)).toEqual({ refused: true, category, range });
  });

  it.each([
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
    '2001:200::1',
    '3fff:1000::1',
    '2003::1',
  ])('lets through the public IPv6 address %s', (address) => {
    expect(judgeAddress(address)).toEqual({ refused: false });
  });
});

describe('IPv6 forms that embed an IPv4 address, judged by that address', () => {
  it.each<[string, RefusedCategory, string, string]>([
    ['::ffff:127.0.0.1', 'loopback', '127.0.0.0/8', 'ipv4-mapped'],
    ['::ffff:7f00:2', 'loopback', '127.0.0.0/8', 'ipv4-mapped'],
    ['0:0:0:0:0:ffff:a00:1', 'private', '10.0.0.0/8', 'ipv4-mapped'],
    ['::ffff:172.16.0.1', 'private', '172.16.0.0/12', 'ipv4-mapped'],
    ['::ffff:192.168.1.1', 'private', '192.168.0.0/16', 'ipv4-mapped'],
    ['::ffff:169.254.169.254', 'link_local', '169.254.0.0/16', 'ipv4-mapped'],
    ['::ffff:a9fe:a9fe', 'link_local', '169.254.0.0/16', 'ipv4-mapped'],
    ['::ffff:100.64.0.1', 'carrier_grade_nat', '100.64.0.0/10', 'ipv4-mapped'],
    ['::ffff:0.0.0.0', 'unspecified', '0.0.0.0/8', 'ipv4-mapped'],
    ['::ffff:224.0.0.1', 'multicast', '224.0.0.0/4', 'ipv4-mapped'],
    ['::ffff:255.255.255.255', 'broadcast', '255.255.255.255/32', 'ipv4-mapped'],
    ['::ffff:192.0.2.1', 'documentation', '192.0.2.0/24', 'ipv4-mapped'],
    ['::ffff:198.18.0.1', 'benchmarking', '198.18.0.0/15', 'ipv4-mapped'],
    ['::ffff:240.0.0.1', 'reserved', '240.0.0.0/4', 'ipv4-mapped'],
    ['::127.0.0.1', 'loopback', '127.0.0.0/8', 'ipv4-compatible'],
    ['::10.0.0.1', 'private', '10.0.0.0/8', 'ipv4-compatible'],
    ['::169.254.169.254', 'link_local', '169.254.0.0/16', 'ipv4-compatible'],
    ['::ffff:0:127.0.0.1', 'loopback', '127.0.0.0/8', 'ipv4-translated'],
    ['::ffff:0:10.0.0.1', 'private', '10.0.0.0/8', 'ipv4-translated'],
    ['64:ff9b::127.0.0.1', 'loopback', '127.0.0.0/8', 'nat64'],
    ['64:ff9b::a00:1', 'private', '10.0.0.0/8', 'nat64'],
    ['64:ff9b::a9fe:a9fe', 'link_local', '169.254.0.0/16', 'nat64'],
    ['64:ff9b::192.168.0.1', 'private', '192.168.0.0/16', 'nat64'],
    ['64:ff9b::100.64.0.1', 'carrier_grade_nat', '100.64.0.0/10', 'nat64'],
    ['64:ff9b::224.0.0.1', 'multicast', '224.0.0.0/4', 'nat64'],
  ])('%s is %s (%s, %s)', (address, category, range, embedded) => {
    expect(judgeAddress(address)).toEqual({ refused: true, category, range, embedded });
  });

  it('lets through an IPv4-mapped or NAT64 form of a public address (an IPv6-only host behind DNS64)', () => {
    expect(judgeAddress('::ffff:8.8.8.8')).toEqual({ refused: false });
    expect(judgeAddress('64:ff9b::8.8.8.8')).toEqual({ refused: false });
    expect(judgeAddress('64:ff9b::5db8:d70e')).toEqual({ refused: false });
  });

  it('refuses the compatible and translated forms even of a public address: no real host has one', () => {
    expect(judgeAddress('::8.8.8.8')).toEqual({
      refused: true,
      category: 'reserved',
      range: '::/96',
      embedded: 'ipv4-compatible',
    });
    expect(judgeAddress('::ffff:0:8.8.8.8')).toEqual({
      refused: true,
      category: 'reserved',
      range: '::ffff:0:0:0/96',
      embedded: 'ipv4-translated',
    });
  });
});

describe('every IPv4 address, in each IPv6 form', () => {
  const hex = (a: number, b: number) => ((a << 8) | b).toString(16);

  it('gets the IPv4 verdict when IPv4-mapped or NAT64, and is refused when IPv4-compatible or -translated', () => {
    fc.assert(
      fc.property(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), ([a, b, c, d]) => {
        const ipv4 = judgeAddress(`${a}.${b}.${c}.${d}`);
        const low = `${hex(a, b)}:${hex(c, d)}`;
        for (const [form, embedded] of [
          [`::ffff:${low}`, 'ipv4-mapped'],
          [`64:ff9b::${low}`, 'nat64'],
        ] as const) {
          expect(judgeAddress(form)).toEqual(
            ipv4.refused ? { ...ipv4, embedded } : { refused: false },
          );
        }
        // :: and ::1 are themselves, whatever 0.0.0.0 and 0.0.0.1 are
        if (a + b + c > 0 || d > 1)
          expect(judgeAddress(`::${low}`)).toMatchObject({
            refused: true,
            embedded: 'ipv4-compatible',
          });
        expect(judgeAddress(`::ffff:0:${low}`)).toMatchObject({
          refused: true,
          embedded: 'ipv4-translated',
        });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('text that is not an IP address', () => {
  // A URL parser turns these into 127.0.0.1 first; DNS never answers with them. Refused if they get here.
  it.each([
    'localhost',
    '0x7f.1',
    '2130706433',
    '127.1',
    '0177.0.0.1',
    '',
    '1.2.3.4.5',
    '::ffff:999.0.0.1',
    '[127.0.0.1]',
  ])('%j is refused as not an IP address', (text) => {
    expect(judgeAddress(text)).toEqual({
      refused: true,
      category: 'reserved',
      range: 'not an IP address',
    });
  });
});

/** The allow-list of `value`, which must parse. */
function allowList(value: string): AllowList {
  const parsed = parseAllowedHosts(value);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.allowList;
}

const FORMS =
  'a host name, an IP address or a CIDR, with an optional port (hooks.internal:8443, 127.0.0.1:9000, [::1]:9000); no scheme, path or wildcard';

/** The entries of a list as text: `name[:port]` and `address/bits[:port]`. */
function entries(list: AllowList): { names: string[]; ranges: string[] } {
  return {
    names: list.names.map(({ name, port }) => (port === undefined ? name : `${name}:${port}`)),
    ranges: list.ranges.map(({ range: [address, bits], port }) => `${address.toString()}/${bits}${port === undefined ? '' : `:${port}`}`),
  };
}

describe('WEBHOOK_ALLOWED_HOSTS', () => {
  it('allows nothing when unset or blank', () => {
    for (const value of [undefined, '', ' , ,']) {
      const parsed = parseAllowedHosts(value);
      expect(parsed).toEqual({ ok: true, allowList: EMPTY_ALLOW_LIST });
    }
  });

  it('reads host names, addresses and CIDRs, with spaces around commas', () => {
    const list = allowList(
      ' Hooks.Internal. , localhost,127.0.0.0/8, ::1 ,fd00::/8,192.168.1.10,bücher.example,[::2]',
    );
    expect(entries(list)).toEqual({
      names: ['hooks.internal', 'localhost', 'xn--bcher-kva.example'],
      ranges: ['127.0.0.0/8', '::1/128', 'fd00::/8', '192.168.1.10/32', '::2/128'],
    });
  });

  it('reads a port after a host name or an address, an IPv6 address with a port in brackets', () => {
    const list = allowList('127.0.0.1:9000, [::1]:9000, host.example:8443, Hooks.Internal.:1, [fd00::7]:65535, ::1:9000');
    expect(entries(list)).toEqual({
      names: ['host.example:8443', 'hooks.internal:1'],
      // without brackets "::1:9000" is an IPv6 address, with no port
      ranges: ['127.0.0.1/32:9000', '::1/128:9000', 'fd00::7/128:65535', '::1:9000/128'],
    });
  });

  it.each([
    ['https://hooks.internal', `"https://hooks.internal" is not ${FORMS}`],
    ['*.internal', `"*.internal" is not ${FORMS}`],
    ['*.internal:8443', `"*.internal:8443" is not ${FORMS}`],
    ['hooks..internal', `"hooks..internal" is not ${FORMS}`],
    ['-hooks.internal', `"-hooks.internal" is not ${FORMS}`],
    ['10.0.0.0/33', '"10.0.0.0/33" is not a CIDR like 127.0.0.0/8 or fd00::/8'],
    ['::/129', '"::/129" is not a CIDR like 127.0.0.0/8 or fd00::/8'],
    ['10.0.0/8', '"10.0.0/8" is not a CIDR like 127.0.0.0/8 or fd00::/8'],
    ['10.0.0.0/8/9', '"10.0.0.0/8/9" is not a CIDR like 127.0.0.0/8 or fd00::/8'],
    ['10.0.0.0/', '"10.0.0.0/" is not a CIDR like 127.0.0.0/8 or fd00::/8'],
    ['10.0.0.0/8:9000', '"10.0.0.0/8:9000" is not a CIDR like 127.0.0.0/8 or fd00::/8: a CIDR takes no brackets and no port (list its addresses with their port instead)'],
    ['[fd00::/8]:9000', '"[fd00::/8]:9000" is not a CIDR like 127.0.0.0/8 or fd00::/8: a CIDR takes no brackets and no port (list its addresses with their port instead)'],
    ['hooks/8', `"hooks/8" is not ${FORMS}`],
    ['hooks.internal/path', `"hooks.internal/path" is not ${FORMS}`],
    ['10.0.0', `"10.0.0" is not ${FORMS}`],
    ['hooks.123', `"hooks.123" is not ${FORMS}`],
    ['user@hooks.internal', `"user@hooks.internal" is not ${FORMS}`],
    ['[127.0.0.1]', `"[127.0.0.1]" is not ${FORMS}`],
    ['[127.0.0.1]:9000', `"[127.0.0.1]:9000" is not ${FORMS}`],
    ['[hooks.internal]:9000', `"[hooks.internal]:9000" is not ${FORMS}`],
    ['hooks.internal:', '"hooks.internal:" has a port that is not a whole number from 1 to 65535'],
    ['hooks.internal:0', '"hooks.internal:0" has a port that is not a whole number from 1 to 65535'],
    ['127.0.0.1:65536', '"127.0.0.1:65536" has a port that is not a whole number from 1 to 65535'],
    ['[::1]:http', '"[::1]:http" has a port that is not a whole number from 1 to 65535'],
    ['hooks.internal:8080:1', `"hooks.internal:8080:1" is not ${FORMS}`],
  ])('refuses the entry %j, naming it', (entry, reason) => {
    expect(parseAllowedHosts(`localhost,${entry}`)).toEqual({ ok: false, reason });
  });

  it('matches a listed name exactly, whatever its case or trailing dot; not its subdomains or parents', () => {
    const list = allowList('hooks.internal');
    expect(isHostAllowListed(list, 'hooks.internal', 443)).toBe(true);
    expect(isHostAllowListed(list, 'HOOKS.Internal.', 8443)).toBe(true);
    expect(isHostAllowListed(list, 'a.hooks.internal', 443)).toBe(false);
    expect(isHostAllowListed(list, 'internal', 443)).toBe(false);
    expect(isHostAllowListed(list, 'hooks.internal.evil.example', 443)).toBe(false);
  });

  it('matches an entry with a port on that port only, one without on every port', () => {
    const list = allowList('hooks.internal:8443,127.0.0.1:9000,[::1]:9000,other.internal');
    expect(isHostAllowListed(list, 'hooks.internal', 8443)).toBe(true);
    expect(isHostAllowListed(list, 'hooks.internal', 443)).toBe(false);
    expect(isHostAllowListed(list, '127.0.0.1', 9000)).toBe(true);
    expect(isHostAllowListed(list, '127.0.0.1', 9001)).toBe(false);
    expect(isHostAllowListed(list, '[::1]', 9000)).toBe(true);
    expect(isHostAllowListed(list, '[::1]', 443)).toBe(false);
    expect(isAddressAllowListed(list, '::ffff:127.0.0.1', 9000)).toBe(true);
    expect(isAddressAllowListed(list, '::ffff:127.0.0.1', 80)).toBe(false);
    expect(isHostAllowListed(list, 'other.internal', 1)).toBe(true);
    expect(isHostAllowListed(list, 'other.internal', 65535)).toBe(true);
    // a name listed twice is allowed on each of its ports
    const twice = allowList('hooks.internal:8443,hooks.internal:9443');
    expect([8443, 9443, 443].map((port) => isHostAllowListed(twice, 'hooks.internal', port))).toEqual([true, true, false]);
  });

  it('matches an address literal host by the listed ranges, IPv6 in URL brackets included', () => {
    const list = allowList('127.0.0.0/8,::1');
    expect(isHostAllowListed(list, '127.0.0.2', 443)).toBe(true);
    expect(isHostAllowListed(list, '[::1]', 443)).toBe(true);
    expect(isHostAllowListed(list, '10.0.0.1', 443)).toBe(false);
    expect(isHostAllowListed(list, '[::2]', 443)).toBe(false);
  });

  it('matches addresses inside a CIDR, the IPv4-mapped form of an IPv4 one too; never across versions otherwise', () => {
    const list = allowList('127.0.0.0/8,fd00::/8');
    expect(isAddressAllowListed(list, '127.0.0.1', 443)).toBe(true);
    expect(isAddressAllowListed(list, '127.255.255.255', 443)).toBe(true);
    expect(isAddressAllowListed(list, '::ffff:127.0.0.1', 443)).toBe(true);
    expect(isAddressAllowListed(list, '128.0.0.0', 443)).toBe(false);
    expect(isAddressAllowListed(list, 'fd12::1', 443)).toBe(true);
    expect(isAddressAllowListed(list, 'fc00::1', 443)).toBe(false);
    expect(isAddressAllowListed(list, '::1', 443)).toBe(false);
    expect(isAddressAllowListed(list, 'not an address', 443)).toBe(false);
  });
});

describe('the decision for a resolved address of a URL host', () => {
  it('refuses what the rules refuse when nothing is allow-listed', () => {
    expect(decideDestination(EMPTY_ALLOW_LIST, 'localhost', '127.0.0.1', 443)).toEqual({
      permitted: false,
      verdict: { refused: true, category: 'loopback', range: '127.0.0.0/8' },
    });
    expect(decideDestination(EMPTY_ALLOW_LIST, 'metadata.example', '169.254.169.254', 80)).toEqual({
      permitted: false,
      verdict: { refused: true, category: 'link_local', range: '169.254.0.0/16' },
    });
  });

  it('permits a public address by the rules', () => {
    expect(decideDestination(EMPTY_ALLOW_LIST, 'hooks.example.com', '93.184.215.14', 443)).toEqual({
      permitted: true,
      by: 'rules',
    });
  });

  it('permits a refused address that a listed CIDR holds, and only that', () => {
    const list = allowList('127.0.0.0/8');
    expect(decideDestination(list, 'receiver.test', '127.0.0.1', 443)).toEqual({
      permitted: true,
      by: 'allow-list',
    });
    expect(decideDestination(list, 'receiver.test', '10.0.0.1', 443)).toMatchObject({
      permitted: false,
    });
  });

  it('permits any address of a listed host name: the operator trusts that name wherever it points', () => {
    const list = allowList('receiver.test');
    expect(decideDestination(list, 'receiver.test', '10.0.0.1', 443)).toEqual({
      permitted: true,
      by: 'allow-list',
    });
    expect(decideDestination(list, 'other.test', '10.0.0.1', 443)).toMatchObject({ permitted: false });
  });

  it('judges a listed name or address on another port than its entry by the rules', () => {
    const list = allowList('receiver.test:9000,127.0.0.1:9000');
    expect(decideDestination(list, 'receiver.test', '10.0.0.1', 9000)).toEqual({ permitted: true, by: 'allow-list' });
    expect(decideDestination(list, 'receiver.test', '10.0.0.1', 9001)).toMatchObject({ permitted: false, verdict: { category: 'private' } });
    expect(decideDestination(list, 'other.test', '127.0.0.1', 9000)).toEqual({ permitted: true, by: 'allow-list' });
    expect(decideDestination(list, 'other.test', '127.0.0.1', 22)).toMatchObject({ permitted: false, verdict: { category: 'loopback' } });
    // a public address needs no entry, on any port
    expect(decideDestination(list, 'receiver.test', '93.184.215.14', 22)).toEqual({ permitted: true, by: 'rules' });
  });
});
