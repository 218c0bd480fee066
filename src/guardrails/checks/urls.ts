/**
 * default.validUrls: every URL in the text must be a well-formed http(s) URL; with `onlyDNS`, its host must also
 * resolve. The vendor's check fetches each URL unless onlyDNS is set; this gateway never fetches URLs taken from
 * model output or client text (that would be an SSRF vector), so syntax is the default and DNS the strict mode.
 */
import dns from 'node:dns';
import net from 'node:net';
import { Type } from '@sinclair/typebox';
import { Not, ParameterSchema, decide, defineCheck, type RegisteredCheck } from '../define.ts';

/** Resolves a hostname or rejects; injected so that tests never touch real DNS. */
export type HostResolver = (hostname: string, signal: AbortSignal) => Promise<unknown>;

export const systemResolver: HostResolver = (hostname) => dns.promises.lookup(hostname);

export const DNS_TIMEOUT_MS = 1500;
/** At most this many distinct hosts are resolved per check: an answer listing thousands must not fan out. */
export const MAX_DNS_HOSTS = 20;

// Anything that looks like a scheme followed by "//": "ftp://x" is found (and rejected), not silently skipped.
const CANDIDATE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s<>"'`]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?'"]+$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** The URLs in `text`, without the sentence punctuation or closing bracket that follows a URL in prose. */
export function findUrls(text: string): string[] {
  const urls: string[] = [];
  for (const [match] of text.matchAll(CANDIDATE)) {
    let url = match.replace(TRAILING_PUNCTUATION, '');
    // "(see https://x.com/a)" - drop closing brackets the URL did not open
    while (/[)\]}]$/.test(url) && count(url, closerOf(url)) > count(url, openerOf(url))) {
      url = url.slice(0, -1).replace(TRAILING_PUNCTUATION, '');
    }
    urls.push(url);
  }
  return urls;
}

/** The parsed URL when `text` is an http(s) URL whose host is an IP literal, `localhost` or a dotted DNS name. */
export function parseHttpUrl(text: string): URL | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname;
  if (host.startsWith('[') || net.isIPv4(host) || host === 'localhost') return url;
  const labels = host.replace(/\.$/, '').split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return null;
  return TOP_LEVEL.test(labels[labels.length - 1] ?? '') ? url : null;
}

async function resolves(resolver: HostResolver, hostname: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  // a referenced timer, cleared when done (AbortSignal.timeout's timer is unreferenced, so a resolver that never
  // settles and holds no handle of its own would let the process exit with the check still pending)
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const combined = signal ? AbortSignal.any([controller.signal, signal]) : controller.signal;
  // The resolver may ignore the signal (dns.lookup cannot be cancelled): race it, so the check still ends on time.
  const aborted = new Promise<boolean>((resolve) => {
    if (combined.aborted) resolve(false);
    combined.addEventListener('abort', () => resolve(false), { once: true });
  });
  try {
    return await Promise.race([resolver(hostname, combined).then(() => true, () => false), aborted]);
  } finally {
    clearTimeout(timer);
  }
}

const ValidUrlsParameters = ParameterSchema({ onlyDNS: Type.Optional(Type.Boolean()), not: Not });

export function createValidUrlsCheck(options: { resolver?: HostResolver; dnsTimeoutMs?: number } = {}): RegisteredCheck {
  const resolver = options.resolver ?? systemResolver;
  const timeoutMs = options.dnsTimeoutMs ?? DNS_TIMEOUT_MS;
  return defineCheck(ValidUrlsParameters, async (context, parameters, checkOptions) => {
    const urls = findUrls(context.text);
    const invalid: string[] = [];
    const hosts = new Map<string, string[]>();
    for (const text of urls) {
      const url = parseHttpUrl(text);
      if (url === null) invalid.push(text);
      // IP literals and localhost have nothing to resolve
      else if (parameters.onlyDNS === true && !url.hostname.startsWith('[') && !net.isIPv4(url.hostname) && url.hostname !== 'localhost') {
        hosts.set(url.hostname, [...(hosts.get(url.hostname) ?? []), text]);
      }
    }
    const toResolve = [...hosts.keys()].slice(0, MAX_DNS_HOSTS);
    const answers = await Promise.all(toResolve.map((host) => resolves(resolver, host, timeoutMs, checkOptions?.signal)));
    toResolve.forEach((host, index) => {
      if (!answers[index]) invalid.push(...(hosts.get(host) ?? []));
    });
    const allValid = invalid.length === 0;
    return {
      ...decide(allValid, parameters.not, {
        yes: urls.length === 0 ? 'The text contains no URLs.' : `All ${urls.length} URLs are valid.`,
        no: `Invalid URLs: ${invalid.join(', ')}.`,
      }),
      data: { urls, invalid, hostsNotResolved: Math.max(0, hosts.size - MAX_DNS_HOSTS) },
    };
  });
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}
function closerOf(url: string): string {
  return url.slice(-1);
}
function openerOf(url: string): string {
  return { ')': '(', ']': '[', '}': '{' }[url.slice(-1)] ?? '';
}
