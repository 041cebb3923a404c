import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

/** The error a refused target raises; recorded on the attempt as `disallowed address`. */
export class DisallowedAddressError extends Error {
  readonly code = 'EDISALLOWEDADDRESS';
  constructor(host: string) {
    super(`${host} resolves to no public address`);
  }
}

/**
 * Only ordinary public unicast addresses. Everything ipaddr.js classifies
 * otherwise is refused: loopback, private, uniqueLocal, linkLocal,
 * carrierGradeNat, multicast, broadcast, unspecified, reserved
 * (documentation and benchmarking ranges), and the IPv6 forms that embed or
 * translate an IPv4 address (NAT64, 6to4, Teredo, IPv4-translated). An
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(ip: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr.range() === 'unicast';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls connect (undici `connect.lookup`): one resolution,
 * the public addresses among the answers are handed to the socket, so the
 * address connected to is exactly an address that was checked; no second
 * lookup an attacker's DNS could answer differently.
 */
export function safeLookup(hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const allowed = addresses.filter((a) => isPublicAddress(a.address));
    if (allowed.length === 0) return callback(new DisallowedAddressError(hostname), []);
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
}

/** Hosts written as an IP address never reach `lookup`; they are checked here. */
export function literalAddressAllowed(hostname: string): boolean | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) ? isPublicAddress(bare) : null;
}
