/**
 * Money as integers: every amount the gateway computes is a bigint of picodollars (10^-12 USD). A price of
 * 0.000001 USD per million tokens is one picodollar per token, so every price the catalog lists (USD per million
 * tokens, at most 6 decimals) and every custom price (USD cents per token, at most 10 decimals) is a whole number
 * of picodollars per token, and a cost is tokens x price with no rounding at all. Sums stay exact however many
 * requests they add up; the request log's `cost` column (numeric(24, 12), USD) holds the same digits.
 *
 * Nothing here goes through a float: prices are read from decimal text (a JSON number's own shortest text, which
 * round-trips), and amounts are written back as decimal text.
 */

/** picodollars in one US dollar */
export const PICO_PER_USD = 10n ** 12n;
/** picodollars in one US cent */
export const PICO_PER_CENT = 10n ** 10n;

/** decimal places: USD per million tokens -> picodollars per token (x 10^6) */
export const USD_PER_MILLION_SCALE = 6;
/** decimal places: USD cents per token -> picodollars per token (x 10^10) */
export const CENTS_SCALE = 10;
/** decimal places: USD -> picodollars */
export const USD_SCALE = 12;
/** decimal places: USD per thousand -> picodollars per one (x 10^9) */
export const USD_PER_THOUSAND_SCALE = 9;

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * `text` x 10^scale as an exact bigint, or undefined when the text is not a non-negative decimal or has more
 * significant decimals than `scale` allows (it would need rounding). Accepts exponents ("2.5e-7"), the form
 * String() gives small numbers.
 */
export function parseScaled(text: string, scale: number): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, whole, fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 400) return undefined;
  const digits = BigInt(`${whole}${fraction}`);
  // the value is digits x 10^(exponent - fraction.length); scaled by 10^scale
  const shift = exponent - fraction.length + scale;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  return digits % divisor === 0n ? digits / divisor : undefined;
}

/** A JSON number read exactly (its shortest decimal text), or undefined (see parseScaled). */
export function scaledNumber(value: number, scale: number): bigint | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  return parseScaled(String(value), scale);
}

/** `value` / 10^scale as decimal text with exactly `scale` decimals ("0.000032500000"). */
export function formatScaled(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}

/** The same text without trailing zeros ("0.0000325", "12", "0"): what the API shows. */
export function formatScaledShort(value: bigint, scale: number): string {
  const text = formatScaled(value, scale);
  return scale > 0 ? text.replace(/\.?0+$/, '') : text;
}

/** Picodollars as the request log's `cost` (USD, 12 decimals). */
export function usdText(pico: bigint): string {
  return formatScaled(pico, USD_SCALE);
}

/** Picodollars per token as the public pricing's cents per token (a JSON number: at most 10 decimals). */
export function centsPerToken(pico: bigint): number {
  return Number(formatScaledShort(pico, CENTS_SCALE));
}
