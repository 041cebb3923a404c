import { isLoopbackName, isPublicAddress, literalAddressAllowed, safeLookup } from './safe-target';

describe('safe webhook targets', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'IPv6 loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'unique local'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['fe80::1', 'IPv6 link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['224.0.0.251', 'multicast'],
    ['ff02::1', 'IPv6 multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'documentation (TEST-NET-1)'],
    ['198.51.100.7', 'documentation (TEST-NET-2)'],
    ['203.0.113.200', 'documentation (TEST-NET-3)'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'IPv6 unspecified'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['64:ff9b::a00:1', 'NAT64 form of a private address'],
    ['2002:a00:1::', '6to4'],
    ['not an address', 'garbage'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, as URL parsing writes it'],
    ['::10.0.0.1', 'IPv4-compatible private'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
    ['64:ff9b::169.254.169.254', 'NAT64 link-local'],
    ['64:ff9b:1::808:808', 'local-use NAT64 (embedding unknown)'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:a9fe:a9fe::', '6to4 of link-local'],
    ['2001:0:7f00:1::f7f7:f7f7', 'Teredo with a loopback server'],
    ['2001:0:808:808::f5ff:fffe', 'Teredo with a private client (10.0.0.1 inverted)'],
  ])('refuses %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:808:808::f7f7:f7f7',
  ])('allows public %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it('checks IP-literal hosts directly (they skip DNS)', () => {
    expect(literalAddressAllowed('127.0.0.1')).toBe(false);
    expect(literalAddressAllowed('[::1]')).toBe(false);
    expect(literalAddressAllowed(new URL('https://[::127.0.0.1]/h').hostname)).toBe(false);
    expect(literalAddressAllowed('8.8.8.8')).toBe(true);
    expect(literalAddressAllowed('hooks.example.com')).toBeNull();
  });

  it.each(['localhost', 'LOCALHOST', 'localhost.', 'api.localhost'])('knows %s is loopback without DNS', (host) => {
    expect(isLoopbackName(host)).toBe(true);
  });

  it.each(['localhost.example.com', 'mylocalhost', 'hooks.example.com'])('leaves %s to the lookup', (host) => {
    expect(isLoopbackName(host)).toBe(false);
  });

  it('a host resolving only to loopback is refused by the lookup', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => safeLookup('localhost', { all: true }, (e) => resolve(e)));
    expect(err?.code).toBe('EDISALLOWEDADDRESS');
  });
});
