/**
 * Local PII detectors: a candidate regex per kind, then a validation step (Luhn, IBAN mod-97, SSN area rules,
 * digit counts) that removes look-alikes. The aim is few false positives on ordinary technical text: version
 * strings, dates, order numbers and random digit runs must pass through untouched.
 *
 * Categories use the spec's names (api-surface §3.14 GatewayPIIParameters) plus IBAN_CODE, which the spec lacks.
 */
import net from 'node:net';

export const PII_CATEGORIES = ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'IBAN_CODE', 'SSN', 'IP_ADDRESS'] as const;
export type PiiCategory = (typeof PII_CATEGORIES)[number];

export interface Finding {
  category: PiiCategory;
  /** [start, end) in UTF-16 code units of the scanned text */
  start: number;
  end: number;
}

interface Detector {
  category: PiiCategory;
  pattern: RegExp;
  /** how much of the matched text really is this kind of PII, from its start: 0 when none of it is */
  accept: (match: string) => number;
}

const digitsOf = (text: string) => text.replace(/\D/g, '');
const whole = (valid: (match: string) => boolean) => (match: string) => (valid(match) ? match.length : 0);

function cardLength(match: string): number {
  // the last group may belong to what follows ("4111 1111 1111 1111 12/25"): retry without it, group by group
  for (let candidate = match; candidate !== ''; candidate = candidate.slice(0, Math.max(0, candidate.search(/[ -]\d+$/)))) {
    const digits = digitsOf(candidate);
    if (digits.length >= 12 && digits.length <= 19 && luhnValid(digits) && knownCardNumber(digits)) return candidate.length;
  }
  return 0;
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** Issuer prefixes with their lengths (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
function knownCardNumber(digits: string): boolean {
  const length = digits.length;
  const prefix = (n: number) => Number(digits.slice(0, n));
  if (digits.startsWith('4')) return length === 13 || length === 16 || length === 19;
  if ((prefix(2) >= 51 && prefix(2) <= 55) || (prefix(4) >= 2221 && prefix(4) <= 2720)) return length === 16;
  if (prefix(2) === 34 || prefix(2) === 37) return length === 15;
  if (digits.startsWith('6011') || digits.startsWith('65') || (prefix(3) >= 644 && prefix(3) <= 649)) {
    return length >= 16 && length <= 19;
  }
  if (prefix(4) >= 3528 && prefix(4) <= 3589) return length >= 16 && length <= 19;
  if ((prefix(3) >= 300 && prefix(3) <= 305) || prefix(2) === 36 || prefix(2) === 38) return length >= 14 && length <= 19;
  if (digits.startsWith('62')) return length >= 16 && length <= 19;
  if (prefix(2) === 50 || (prefix(2) >= 56 && prefix(2) <= 69)) return length >= 12 && length <= 19;
  return false;
}

/** IBAN length by country (ISO 13616 registry); an unknown country code is not an IBAN. */
const IBAN_LENGTHS: Record<string, number> = Object.fromEntries(
  ('AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 EE20 EG29 ES24 FI18 ' +
    'FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 ' +
    'LU20 LV21 MC27 MD24 ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 SA24 SC31 SE24 SI19 ' +
    'SK24 SM27 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20')
    .split(' ')
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))]),
);

export function ibanValid(text: string): boolean {
  const iban = text.replace(/ /g, '');
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  // move the country and check digits to the end, letters to numbers (A=10 .. Z=35), then mod 97 piecewise
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= 'A' ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** Area 000, 666 and 900-999, group 00 and serial 0000 are never issued. */
function ssnValid(text: string): boolean {
  const [area = '', group = '', serial = ''] = text.split(/[- ]/);
  return area !== '000' && area !== '666' && !area.startsWith('9') && group !== '00' && serial !== '0000';
}

/** NANP: area code and exchange start with 2-9. */
function usPhoneValid(text: string): boolean {
  const digits = digitsOf(text);
  const national = digits.length === 11 ? digits.slice(1) : digits;
  return national.length === 10 && national[0]! >= '2' && national[3]! >= '2';
}

/** E.164 allows at most 15 digits; fewer than 8 is a short code or a number in a formula, not a phone number. */
function internationalPhoneValid(text: string): boolean {
  const digits = digitsOf(text).length;
  // one separator between digit groups; only " (" and ") " around an area code may pair up
  return digits >= 8 && digits <= 15 && !/[ .()-]{2}/.test(text.replace(/ \(/g, '(').replace(/\) /g, ')'));
}

function ipv6Valid(text: string): boolean {
  // "::" or "Cafe::Bead"-like identifiers parse as IPv6 but are not addresses in prose: require a digit and 3 colons
  // unless compressed ("::1", "fe80::1")
  return net.isIPv6(text) && /\d/.test(text) && (text.includes('::') || text.split(':').length === 8);
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';

/**
 * Order matters: a span taken by an earlier detector is not offered to a later one (an IBAN's digits are not
 * also a card number; an email's digits are not a phone number; ::ffff:10.1.2.3 is one IPv6 address).
 * The look-arounds keep a candidate from starting or ending inside a longer token, which is what rejects version
 * strings (1.2.3.4.5), longer digit runs and dotted identifiers.
 */
const DETECTORS: readonly Detector[] = [
  {
    category: 'EMAIL_ADDRESS',
    pattern: /(?<![\w.%+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_%+-])?@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}(?![\w-])/g,
    accept: whole((match) => !match.includes('..')),
  },
  {
    category: 'IBAN_CODE',
    pattern: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/g,
    accept: whole(ibanValid),
  },
  {
    category: 'CREDIT_CARD',
    // 12-19 digits, ungrouped or grouped by one kind of separator
    pattern: /(?<![\w.-])\d{4}(?:(?: ?\d{2,6}){2,4}|(?:-\d{2,6}){2,4}|\d{8,15})(?![\w-]|\.\d)/g,
    accept: cardLength,
  },
  {
    category: 'SSN',
    pattern: /(?<![\w.-])\d{3}(?:-\d{2}-|\s\d{2}\s)\d{4}(?![\w-]|\.\d)/g,
    accept: whole(ssnValid),
  },
  {
    category: 'IP_ADDRESS',
    pattern: /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?(?![\w:]|\.\d)/g,
    accept: whole(ipv6Valid),
  },
  {
    category: 'IP_ADDRESS',
    pattern: new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?![\\w]|\\.\\d)`, 'g'),
    accept: (match) => match.length,
  },
  {
    category: 'PHONE_NUMBER',
    pattern: /(?<![\w+])\+[1-9](?:[ .()-]{0,2}\d){7,14}(?![\w]|[.-]\d)/g,
    accept: whole(internationalPhoneValid),
  },
  {
    category: 'PHONE_NUMBER',
    pattern: /(?<![\w.+-])(?:1[ .-])?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}(?![\w-]|\.\d)/g,
    accept: whole(usPhoneValid),
  },
];

/** Every finding in `text` for the wanted categories, in text order, never overlapping. */
export function detectPii(text: string, categories: ReadonlySet<PiiCategory>): Finding[] {
  const findings: Finding[] = [];
  const overlaps = (start: number, end: number) => findings.some((f) => start < f.end && f.start < end);
  for (const detector of DETECTORS) {
    if (!categories.has(detector.category)) continue;
    for (const match of text.matchAll(detector.pattern)) {
      const start = match.index;
      if (overlaps(start, start + match[0].length)) continue;
      const length = detector.accept(match[0]);
      if (length > 0) findings.push({ category: detector.category, start, end: start + length });
    }
  }
  return findings.sort((a, b) => a.start - b.start);
}
