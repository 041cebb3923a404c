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

const v4At = (bytes: number[], at: number, flip = 0) => new ipaddr.IPv4(bytes.slice(at, at + 4).map((b) => b ^ flip));
const startsWith = (bytes: number[], prefix: number[]) => prefix.every((b, i) => bytes[i] === b);
const ZEROS_64 = [0, 0, 0, 0, 0, 0, 0, 0];

/**
 * The IPv4 addresses an IPv6 address carries, by the form that embeds them:
 * IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96, which holds :: and ::1
 * as 0.0.0.0 and 0.0.0.1), IPv4-translated (::ffff:0:0:0/96), NAT64
 * (64:ff9b::/96), 6to4 (2002::/16: bits 16-48) and Teredo (2001::/32: the
 * server, and the client stored inverted). `unknown` for the local-use NAT64
 * prefix 64:ff9b:1::/48, whose embedding depends on the operator's prefix
 * length; null when the address embeds none.
 */
export function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4[] | 'unknown' | null {
  const b = addr.toByteArray();
  if (startsWith(b, [...ZEROS_64, 0, 0, 0xff, 0xff]) || startsWith(b, [...ZEROS_64, 0, 0, 0, 0])) return [v4At(b, 12)];
  if (startsWith(b, [...ZEROS_64, 0xff, 0xff, 0, 0])) return [v4At(b, 12)];
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, ...ZEROS_64])) return [v4At(b, 12)];
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 1])) return 'unknown';
  if (startsWith(b, [0x20, 0x02])) return [v4At(b, 2)];
  if (startsWith(b, [0x20, 0x01, 0, 0])) return [v4At(b, 4), v4At(b, 12, 0xff)];
  return null;
}

/**
 * Only ordinary public unicast addresses. Everything ipaddr.js classifies
 * otherwise is refused: loopback, private, uniqueLocal, linkLocal,
 * carrierGradeNat, multicast, broadcast, unspecified, reserved
 * (documentation and benchmarking ranges). An IPv6 address that embeds IPv4
 * addresses (embeddedIPv4) is judged by them alone: every one must be public,
 * so [::127.0.0.1] is loopback however it is written.
 */
export function isPublicAddress(ip: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (addr.kind() === 'ipv4') return addr.range() === 'unicast';
  const embedded = embeddedIPv4(addr as ipaddr.IPv6);
  if (embedded === 'unknown') return false;
  if (embedded) return embedded.every((v4) => v4.range() === 'unicast');
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

/**
 * `localhost` names are loopback by definition (RFC 6761), so an endpoint is refused one when it is
 * created, like an IP literal, rather than only when a delivery fails. At send time every name,
 * these included, goes through `safeLookup`.
 */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
