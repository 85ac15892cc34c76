// Where a webhook may be sent (docs/webhooks.md, "Where deliveries go"): HTTPS to public addresses only.
// Every address the host resolves to is checked, and the request then connects to a checked address
// (no second lookup a rebinding DNS server could answer differently). WEBHOOKS_ALLOW_PRIVATE=1 lifts both
// rules, for tests and private deployments.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3], // multicast and reserved
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

/**
 * The IPv4 address an IPv6 one carries, where a translator or tunnel would deliver to it: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and 6to4 (2002::/16).
 */
function embeddedIpv4(groups: readonly number[]): string | null {
  const v4 = (hi: number, lo: number): string => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  const zero = (from: number, to: number): boolean => groups.slice(from, to).every((g) => g === 0);
  if (zero(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && (zero(2, 6) || groups[2] === 1)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return null;
}

export function isPrivateAddress(address: string): boolean {
  if (isIP(address) !== 6) return PRIVATE.check(address, 'ipv4');
  const v4 = embeddedIpv4(ipaddr.IPv6.parse(address).parts);
  return PRIVATE.check(address, 'ipv6') || (v4 !== null && PRIVATE.check(v4, 'ipv4'));
}

export class RefusedTarget extends Error {}

export interface Target {
  url: URL;
  /** The checked address to connect to. */
  address: string;
  family: 4 | 6;
}

/** Checks a URL's form only (at registration; DNS is checked again at every delivery). */
export function checkUrlForm(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedTarget('is not a URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    throw new RefusedTarget('must be an https:// URL');
  if (url.username || url.password) throw new RefusedTarget('must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || (isIP(host) && isPrivateAddress(host))))
    throw new RefusedTarget('points to a private, loopback or link-local address');
  return url;
}

/** Resolves the URL's host and refuses it when any of its addresses is private (unless allowed). */
export async function resolveTarget(raw: string, allowPrivate: boolean): Promise<Target> {
  const url = checkUrlForm(raw, allowPrivate);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new RefusedTarget(`host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new RefusedTarget(`host ${host} does not resolve`);
  if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address)))
    throw new RefusedTarget('resolves to a private, loopback or link-local address');
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
