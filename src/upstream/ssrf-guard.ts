/**
 * SSRF guard for the `x-gateway-custom-host` header.
 *
 * Invariant: the gateway only ever opens a connection to a custom host whose every address is a plain global
 * unicast address (or is explicitly allowlisted by the operator through GATEWAY_CUSTOM_HOST_ALLOWLIST).
 * This is enforced twice:
 *   1. before connecting, by `checkCustomHost` (URL shape, IP literals, and every DNS answer for names), and
 *   2. at connect time, by `guardedLookup`, installed as undici's `connect: { lookup }`, so that a DNS answer that
 *      changes between the check and the connection (DNS rebinding) cannot reach an internal address.
 * Redirects are never followed by the gateway (a 3xx from the upstream is relayed, not chased), so a public host
 * cannot bounce a request to an internal one.
 *
 * All address parsing and range matching goes through `ipaddr.js`. IPv6 text is first canonicalised by the WHATWG
 * URL parser, because ipaddr.js reads the IPv4-compatible form `::a.b.c.d` as if it were IPv4-mapped `::ffff:a.b.c.d`.
 */
import dns from 'node:dns';
import net from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { invalidParam, type GatewayError } from '../core/errors.ts';

const PARAM = 'x-gateway-custom-host';
const MAX_URL_LENGTH = 2048;

/** The `code` of the Error that `guardedLookup` fails a connection with. */
export const CUSTOM_HOST_BLOCKED_CODE = 'ECUSTOMHOSTBLOCKED';

export interface Allowlist {
  hosts: Set<string>;
  ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

export type LookupAll = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemLookupAll: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

// ---------------------------------------------------------------------------------------------------------------
// Address parsing and classification
// ---------------------------------------------------------------------------------------------------------------

/**
 * Parses an IP address string. Accepts an optional `[...]` around IPv6 and an IPv6 zone id (`%eth0`, ignored: it
 * does not change which range the address is in). IPv4 accepts the inet_aton spellings ipaddr.js knows
 * (`2130706433`, `0x7f.1`), which is what a resolver would connect to. Returns null when not an IP address.
 */
function parseIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let s = text.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  if (s.includes(':')) {
    const zone = s.indexOf('%');
    if (zone !== -1) s = s.slice(0, zone);
    if (!net.isIPv6(s)) return null;
    let canonical: string;
    try {
      canonical = new URL(`http://[${s}]/`).hostname.slice(1, -1);
    } catch {
      return null;
    }
    try {
      return ipaddr.IPv6.parse(canonical);
    } catch {
      return null;
    }
  }
  if (s === '' || !ipaddr.IPv4.isValid(s)) return null;
  try {
    return ipaddr.IPv4.parse(s);
  } catch {
    return null;
  }
}

type Range<T> = [T, number];

function v4(cidr: string): Range<ipaddr.IPv4> {
  return ipaddr.IPv4.parseCIDR(cidr);
}
function v6(cidr: string): Range<ipaddr.IPv6> {
  return ipaddr.IPv6.parseCIDR(cidr);
}

/** Checked in order; the first match names the reason. */
const V4_BLOCKED: ReadonlyArray<[Range<ipaddr.IPv4>, string]> = [
  [v4('255.255.255.255/32'), 'broadcast'],
  [v4('0.0.0.0/32'), 'unspecified'],
  [v4('0.0.0.0/8'), 'this-network'],
  [v4('10.0.0.0/8'), 'private'],
  [v4('172.16.0.0/12'), 'private'],
  [v4('192.168.0.0/16'), 'private'],
  [v4('127.0.0.0/8'), 'loopback'],
  [v4('169.254.0.0/16'), 'link-local'], // includes cloud metadata 169.254.169.254
  [v4('100.64.0.0/10'), 'cgnat'],
  [v4('192.0.0.0/24'), 'reserved'], // IETF protocol assignments
  [v4('192.0.2.0/24'), 'documentation'], // TEST-NET-1
  [v4('198.51.100.0/24'), 'documentation'], // TEST-NET-2
  [v4('203.0.113.0/24'), 'documentation'], // TEST-NET-3
  [v4('198.18.0.0/15'), 'benchmark'],
  [v4('192.88.99.0/24'), 'reserved'], // deprecated 6to4 relay anycast
  [v4('224.0.0.0/4'), 'multicast'],
  [v4('240.0.0.0/4'), 'reserved'],
];

/** IPv6 ranges that embed an IPv4 address; the embedded address decides. `at` is the index of its first 16-bit part. */
const V6_EMBEDDING: ReadonlyArray<[Range<ipaddr.IPv6>, number]> = [
  [v6('::ffff:0:0/96'), 6], // IPv4-mapped
  [v6('::ffff:0:0:0/96'), 6], // IPv4-translated (RFC 6145)
  [v6('64:ff9b::/96'), 6], // NAT64 well-known prefix (RFC 6052)
  [v6('2002::/16'), 1], // 6to4 (RFC 3056)
];

const V6_BLOCKED: ReadonlyArray<[Range<ipaddr.IPv6>, string]> = [
  [v6('::/128'), 'unspecified'],
  [v6('::1/128'), 'loopback'],
  [v6('::/96'), 'ipv4-compatible'], // deprecated (RFC 4291); never a plain global address
  [v6('64:ff9b:1::/48'), 'nat64-local'], // local-use NAT64 (RFC 8215)
  [v6('100::/64'), 'discard'],
  [v6('2001::/32'), 'teredo'],
  [v6('2001:2::/48'), 'benchmark'],
  [v6('2001:db8::/32'), 'documentation'],
  [v6('3fff::/20'), 'documentation'],
  [v6('2001::/23'), 'reserved'], // IETF protocol assignments
  [v6('fc00::/7'), 'unique-local'],
  [v6('fe80::/10'), 'link-local'],
  [v6('fec0::/10'), 'site-local'],
  [v6('ff00::/8'), 'multicast'],
];

const V6_GLOBAL_UNICAST = v6('2000::/3');

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function embeddedIPv4(addr: ipaddr.IPv6, at: number): ipaddr.IPv4 {
  const hi = addr.parts[at] ?? 0;
  const lo = addr.parts[at + 1] ?? 0;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function blockedReasonV4(addr: ipaddr.IPv4): string | null {
  for (const [range, reason] of V4_BLOCKED) if (addr.match(range)) return reason;
  // Catch-all for whatever else ipaddr.js knows is not plain unicast (AS112, AMT, ...).
  const kind = addr.range();
  return kind === 'unicast' ? null : kebab(kind);
}

function blockedReasonV6(addr: ipaddr.IPv6): string | null {
  for (const [range, at] of V6_EMBEDDING) if (addr.match(range)) return blockedReasonV4(embeddedIPv4(addr, at));
  for (const [range, reason] of V6_BLOCKED) if (addr.match(range)) return reason;
  if (!addr.match(V6_GLOBAL_UNICAST)) return 'reserved';
  const kind = addr.range();
  return kind === 'unicast' ? null : kebab(kind);
}

function blockedReasonOf(addr: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  return addr.kind() === 'ipv4' ? blockedReasonV4(addr as ipaddr.IPv4) : blockedReasonV6(addr as ipaddr.IPv6);
}

/**
 * Null when `address` is a plain global unicast address; otherwise a short reason ('loopback', 'private',
 * 'link-local', ...). Anything that is not a parseable IP address is blocked as 'invalid-address'.
 */
export function blockedReason(address: string): string | null {
  const addr = parseIp(address);
  if (!addr) return 'invalid-address';
  return blockedReasonOf(addr);
}

// ---------------------------------------------------------------------------------------------------------------
// Allowlist
// ---------------------------------------------------------------------------------------------------------------

const HOSTNAME_RE = /^[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;

function normalizeHostname(hostname: string): string {
  let h = hostname.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

function allowlistError(entry: string, why: string): Error {
  return new Error(`GATEWAY_CUSTOM_HOST_ALLOWLIST: invalid entry ${JSON.stringify(entry)}: ${why}`);
}

function parseAllowlistRange(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const slash = entry.lastIndexOf('/');
  if (slash === -1) {
    if (entry.includes(':') || entry.startsWith('[')) {
      const addr = parseIp(entry);
      if (!addr) throw allowlistError(entry, 'not a valid IPv6 address');
      return [addr, 128];
    }
    return [ipaddr.IPv4.parse(entry), 32];
  }
  const addrText = entry.slice(0, slash);
  const bitsText = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) throw allowlistError(entry, 'the prefix length must be a number');
  const isV6 = addrText.includes(':');
  const addr = isV6 || ipaddr.IPv4.isValidFourPartDecimal(addrText) ? parseIp(addrText) : null;
  if (!addr) throw allowlistError(entry, 'not an IP address before the "/"');
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  const bits = Number(bitsText);
  if (bits > max) throw allowlistError(entry, `the prefix length must be at most ${max}`);
  return [addr, bits];
}

/**
 * Parses GATEWAY_CUSTOM_HOST_ALLOWLIST entries: hostnames (`localhost`, `llm.internal`), IP addresses
 * (`127.0.0.1`, `::1`, `[::1]`) and CIDR ranges (`10.0.0.0/8`, `fd00::/8`). Empty entries are skipped.
 * Throws an Error naming the entry when one is malformed (this runs at config time).
 */
export function parseAllowlist(entries: readonly string[]): Allowlist {
  const allowlist: Allowlist = { hosts: new Set(), ranges: [] };
  for (const rawEntry of entries) {
    const entry = rawEntry.trim();
    if (entry === '') continue;
    if (entry.includes('/') || entry.includes(':') || entry.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(entry)) {
      allowlist.ranges.push(parseAllowlistRange(entry));
      continue;
    }
    const ascii = domainToASCII(normalizeHostname(entry));
    if (ascii === '' || !HOSTNAME_RE.test(ascii)) {
      throw allowlistError(entry, 'not a hostname, IP address or CIDR range');
    }
    // The URL parser turns hosts whose last label is numeric (127.1, 0x7f.1) into IPv4, so such a name never matches.
    if (/^(?:\d+|0x[0-9a-f]*)$/.test(ascii.slice(ascii.lastIndexOf('.') + 1))) {
      throw allowlistError(entry, 'looks like an IPv4 address; write it as four decimal parts (a.b.c.d)');
    }
    allowlist.hosts.add(ascii);
  }
  return allowlist;
}

/** The address itself and, for IPv4-mapped IPv6, the embedded IPv4 (so an allowlisted 127.0.0.1 covers ::ffff:127.0.0.1). */
function matchCandidates(addr: ipaddr.IPv4 | ipaddr.IPv6): Array<ipaddr.IPv4 | ipaddr.IPv6> {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [addr, (addr as ipaddr.IPv6).toIPv4Address()];
  }
  return [addr];
}

function inAllowedRange(allowlist: Allowlist, addr: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  for (const candidate of matchCandidates(addr)) {
    for (const [base, bits] of allowlist.ranges) {
      if (base.kind() === candidate.kind() && candidate.match(base, bits)) return true;
    }
  }
  return false;
}

/**
 * True when the operator allowlisted `hostname` by name, or when `hostname` (if an IP literal) or `address` (the
 * resolved address about to be used) falls in an allowlisted IP/CIDR.
 */
export function isAllowlisted(allowlist: Allowlist, hostname: string, address?: string): boolean {
  const host = normalizeHostname(hostname);
  if (allowlist.hosts.has(host)) return true;
  if (allowlist.ranges.length === 0) return false;
  if (host.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(host)) {
    const literal = parseIp(host);
    if (literal && inAllowedRange(allowlist, literal)) return true;
  }
  if (address !== undefined) {
    const addr = parseIp(address);
    if (addr && inAllowedRange(allowlist, addr)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Request-time check
// ---------------------------------------------------------------------------------------------------------------

function invalid(message: string): GatewayError {
  return invalidParam(PARAM, message, 'invalid_custom_host');
}

function blocked(message: string): GatewayError {
  return invalidParam(PARAM, message, 'custom_host_blocked');
}

/**
 * Validates a custom host base URL: http/https only, no userinfo, hostname present; IP literals checked directly
 * (including bracketed IPv6 and odd IPv4 spellings that the WHATWG URL parser normalises, like http://2130706433/ or
 * http://0x7f.1/); names resolved with `lookup` and EVERY resolved address checked. Allowlisted names/addresses pass.
 * Returns the parsed URL with any trailing slash removed from the pathname (a bare origin keeps the pathname '/',
 * which an http(s) URL cannot drop).
 */
export async function checkCustomHost(raw: string, allowlist: Allowlist, lookup: LookupAll = systemLookupAll): Promise<URL> {
  if (typeof raw !== 'string' || raw.trim() === '') throw invalid('The custom host must be an absolute http(s) URL.');
  if (raw.length > MAX_URL_LENGTH) throw invalid(`The custom host URL must be at most ${MAX_URL_LENGTH} characters.`);

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('The custom host is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid('The custom host URL must use http or https.');
  }
  if (url.username !== '' || url.password !== '') {
    throw invalid('The custom host URL must not contain credentials.');
  }
  if (url.hostname === '') throw invalid('The custom host URL has no hostname.');

  // The URL parser has already normalised IPv4 spellings (2130706433, 0x7f.1, 127.1) to dotted decimal and
  // canonicalised bracketed IPv6, so a literal is either `a.b.c.d` or `[...]` here.
  const hostname = url.hostname;
  const isV6Literal = hostname.startsWith('[');
  if (isV6Literal || net.isIPv4(hostname)) {
    if (!isAllowlisted(allowlist, hostname, hostname)) {
      const reason = blockedReason(hostname);
      if (reason !== null) throw blocked(`The custom host address is not allowed (${reason}).`);
    }
  } else if (!isAllowlisted(allowlist, hostname)) {
    let addresses: Array<{ address: string; family: number }>;
    try {
      addresses = await lookup(normalizeHostname(hostname));
    } catch {
      throw invalidParam(PARAM, `The custom host ${hostname} could not be resolved.`, 'custom_host_unresolvable');
    }
    if (addresses.length === 0) {
      throw invalidParam(PARAM, `The custom host ${hostname} could not be resolved.`, 'custom_host_unresolvable');
    }
    for (const { address } of addresses) {
      if (isAllowlisted(allowlist, hostname, address)) continue;
      const reason = blockedReason(address);
      if (reason !== null) throw blocked(`The custom host ${hostname} resolves to an address that is not allowed (${reason}).`);
    }
  }

  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

// ---------------------------------------------------------------------------------------------------------------
// Connect-time check
// ---------------------------------------------------------------------------------------------------------------

type RawLookupAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

const systemRawLookupAll: RawLookupAll = (hostname, options, callback) => dns.lookup(hostname, options, callback);

type LookupError = NodeJS.ErrnoException & { hostname: string };

function lookupError(message: string, code: string, hostname: string): LookupError {
  return Object.assign(new Error(message), { code, hostname });
}

/**
 * A `lookup` function with the signature of node's dns.lookup, for undici's `connect: { lookup }` option, that
 * resolves and fails the connection (with an Error whose code is 'ECUSTOMHOSTBLOCKED') when any resolved address is
 * blocked and not allowlisted. This defends against DNS rebinding between checkCustomHost and the connection.
 * Supports `lookup(host, cb)`, `lookup(host, family, cb)` and `lookup(host, options, cb)`, answering
 * `cb(err, address, family)` or, with `{ all: true }`, `cb(err, addresses)`.
 * `resolve` is the underlying all-addresses lookup (tests inject one); it defaults to dns.lookup.
 */
export function guardedLookup(
  allowlist: Allowlist,
  resolve: RawLookupAll = systemRawLookupAll,
): (hostname: string, options: object, callback: (...args: any[]) => void) => void {
  return function lookup(hostname: string, options: unknown, callback?: (...args: any[]) => void): void {
    let cb = callback;
    let opts: dns.LookupOptions = {};
    if (typeof options === 'function') {
      cb = options as (...args: any[]) => void;
    } else if (typeof options === 'number') {
      opts = { family: options };
    } else if (options !== null && typeof options === 'object') {
      opts = { ...(options as dns.LookupOptions) };
    }
    if (typeof cb !== 'function') throw new TypeError('guardedLookup: callback must be a function');
    const done = cb;
    const wantAll = opts.all === true;

    resolve(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return done(err);
      if (!addresses || addresses.length === 0) {
        return done(lookupError(`getaddrinfo ENOTFOUND ${hostname}`, 'ENOTFOUND', hostname));
      }
      for (const { address } of addresses) {
        if (isAllowlisted(allowlist, hostname, address)) continue;
        const reason = blockedReason(address);
        if (reason !== null) {
          const message = `Connection to custom host ${hostname} refused: it resolved to an address that is not allowed (${reason}).`;
          return done(lookupError(message, CUSTOM_HOST_BLOCKED_CODE, hostname));
        }
      }
      if (wantAll) return done(null, addresses);
      const first = addresses[0]!;
      return done(null, first.address, first.family);
    });
  };
}
