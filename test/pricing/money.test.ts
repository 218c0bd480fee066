/** Money as integers: decimal text <-> picodollars, exact or refused. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CENTS_SCALE, centsPerToken, formatScaled, formatScaledShort, parseScaled, scaledNumber, usdText } from '../../src/pricing/money.ts';

test('parseScaled: exact decimals, exponents, and refusals where rounding would be needed', () => {
  assert.equal(parseScaled('2.5', 6), 2_500_000n);
  assert.equal(parseScaled('0.000001', 6), 1n);
  assert.equal(parseScaled('0.0000001', 6), undefined, 'a 7th decimal would need rounding');
  assert.equal(parseScaled('2.5e-7', CENTS_SCALE), 2500n);
  assert.equal(parseScaled('1e3', 0), 1000n);
  assert.equal(parseScaled('1.50e-1', 2), 15n);
  for (const bad of ['', '-1', '1.', '.5', 'NaN', 'Infinity', '1e999', '0x10', ' 1']) assert.equal(parseScaled(bad, 6), undefined, bad);
});

test('scaledNumber: a JSON number read from its own shortest text, never through float arithmetic', () => {
  assert.equal(scaledNumber(0.003, CENTS_SCALE), 30_000_000n);
  assert.equal(scaledNumber(0.1 + 0.2, CENTS_SCALE), undefined, '0.30000000000000004 has too many decimals');
  assert.equal(scaledNumber(1e-10, CENTS_SCALE), 1n);
  assert.equal(scaledNumber(1e-11, CENTS_SCALE), undefined);
  assert.equal(scaledNumber(-1, CENTS_SCALE), undefined);
  assert.equal(scaledNumber(Number.NaN, CENTS_SCALE), undefined);
});

test('formatting: the request log\'s 12 decimals, the API\'s short form, cents per token as a JSON number', () => {
  assert.equal(usdText(32_500_000n), '0.000032500000');
  assert.equal(usdText(1_550_000_000_000n), '1.550000000000');
  assert.equal(formatScaled(-5n, 3), '-0.005');
  assert.equal(formatScaledShort(2_500_000n, 6), '2.5');
  assert.equal(formatScaledShort(0n, 6), '0');
  assert.equal(centsPerToken(2_500_000n), 0.00025, '$2.50 per million tokens is 0.00025 cents per token');
  assert.equal(centsPerToken(30_000_000n), 0.003, 'the reference\'s example: GPT-4\'s $0.03 per thousand tokens');
});
