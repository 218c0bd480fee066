import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PII_CATEGORIES, detectPii, luhnValid, ibanValid, type PiiCategory } from '../../src/guardrails/checks/pii-detectors.ts';
import { runChecks } from '../../src/guardrails/run.ts';
import { makeContext, makeRegistry, rejects400, runOne } from './helpers.ts';

const registry = makeRegistry();
const ALL = new Set<PiiCategory>(PII_CATEGORIES);

/** [text, expected redaction] */
const TRUE_POSITIVES: Array<[string, string]> = [
  ['Mail john.doe+news@example.co.uk today', 'Mail [REDACTED_EMAIL_ADDRESS] today'],
  ['a_b@sub.example.org.', '[REDACTED_EMAIL_ADDRESS].'],
  ['Call +44 20 7946 0958.', 'Call [REDACTED_PHONE_NUMBER].'],
  ['Call +44 (0)20 7946 0958', 'Call [REDACTED_PHONE_NUMBER]'],
  ['Tel +33 1 23 45 67 89', 'Tel [REDACTED_PHONE_NUMBER]'],
  ['Tel +81-3-1234-5678', 'Tel [REDACTED_PHONE_NUMBER]'],
  ['Tel +91 98765 43210', 'Tel [REDACTED_PHONE_NUMBER]'],
  ['Tel +1 (212) 555-1234', 'Tel [REDACTED_PHONE_NUMBER]'],
  ['Office (212) 555-1234 ext', 'Office [REDACTED_PHONE_NUMBER] ext'],
  ['Office 212-555-1234', 'Office [REDACTED_PHONE_NUMBER]'],
  ['Office 212.555.1234', 'Office [REDACTED_PHONE_NUMBER]'],
  ['Office 1-800-555-0199', 'Office [REDACTED_PHONE_NUMBER]'],
  ['Visa 4111 1111 1111 1111 ok', 'Visa [REDACTED_CREDIT_CARD] ok'],
  ['Visa 4111-1111-1111-1111', 'Visa [REDACTED_CREDIT_CARD]'],
  ['Visa 4111111111111111', 'Visa [REDACTED_CREDIT_CARD]'],
  ['MC 5555555555554444', 'MC [REDACTED_CREDIT_CARD]'],
  ['Amex 3782 822463 10005', 'Amex [REDACTED_CREDIT_CARD]'],
  ['Card 4111 1111 1111 1111 12/25', 'Card [REDACTED_CREDIT_CARD] 12/25'],
  ['IBAN DE89 3704 0044 0532 0130 00', 'IBAN [REDACTED_IBAN_CODE]'],
  ['IBAN DE89370400440532013000.', 'IBAN [REDACTED_IBAN_CODE].'],
  ['IBAN GB82 WEST 1234 5698 7654 32', 'IBAN [REDACTED_IBAN_CODE]'],
  ['IBAN FR14 2004 1010 0505 0001 3M02 606', 'IBAN [REDACTED_IBAN_CODE]'],
  ['SSN 123-45-6789', 'SSN [REDACTED_SSN]'],
  ['SSN 078 05 1120', 'SSN [REDACTED_SSN]'],
  ['Host 192.168.1.1', 'Host [REDACTED_IP_ADDRESS]'],
  ['Host 8.8.8.8.', 'Host [REDACTED_IP_ADDRESS].'],
  ['Host 2001:db8::8a2e:370:7334', 'Host [REDACTED_IP_ADDRESS]'],
  ['Host 2001:0db8:85a3:0000:0000:8a2e:0370:7334', 'Host [REDACTED_IP_ADDRESS]'],
  ['Host fe80::1 and ::1', 'Host [REDACTED_IP_ADDRESS] and [REDACTED_IP_ADDRESS]'],
  ['Mapped ::ffff:10.1.2.3', 'Mapped [REDACTED_IP_ADDRESS]'],
];

/** Look-alikes that must not be flagged. */
const NEAR_MISSES: string[] = [
  'Card 4111 1111 1111 1112 (Luhn fails)',
  'Order 1234567812345678', // Luhn fails
  'Ref 1234567812345670', // passes Luhn, but no card issuer uses prefix 12
  'ts 1712345678901',
  'IBAN DE89 3704 0044 0532 0130 01', // mod-97 fails
  'IBAN XX89370400440532013000', // no such country
  'SSN 000-12-3456',
  'SSN 666-12-3456',
  'SSN 912-34-5678',
  'SSN 123-00-4567',
  'SSN 123-45-0000',
  'version 1.2.3.4.5',
  'release v1.2.3.4',
  'not an address: 256.1.1.1',
  'dated 2024-01-15 10:30:00',
  'timestamp 2024-01-15T10:30:00Z',
  'MAC 00:1A:2B:3C:4D:5E',
  'C++ std::vector and Foo::Bar',
  'pi 3.14159265358979',
  'Order 1234567890',
  'short +12345',
  'area code 123-456-7890 starts with 1',
  'call 555-1234',
  'ISBN 978-3-16-148410-0',
  'uuid 123e4567-e89b-12d3-a456-426614174000',
  'a..b@example.com is not an address',
  'ISO 9001:2015',
];

describe('PII detectors', () => {
  it('Luhn and IBAN mod-97', () => {
    assert.equal(luhnValid('4111111111111111'), true);
    assert.equal(luhnValid('4111111111111112'), false);
    assert.equal(luhnValid('1234567812345670'), true);
    assert.equal(ibanValid('DE89370400440532013000'), true);
    assert.equal(ibanValid('DE89370400440532013001'), false);
    assert.equal(ibanValid('DE8937040044053201300'), false); // one character short for DE
  });

  it('finds and redacts every true positive exactly', async () => {
    for (const [text, expected] of TRUE_POSITIVES) {
      const verdict = await runOne(registry, 'gateway.pii', { redact: true }, { text });
      assert.equal(verdict.verdict, false, text);
      assert.equal(verdict.redacted, expected, text);
    }
  });

  it('flags none of the near-misses', () => {
    for (const text of NEAR_MISSES) assert.deepEqual(detectPii(text, ALL), [], text);
  });

  it('no Luhn-failing 16-digit string is a card', () => {
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    let tried = 0;
    while (tried < 500) {
      const digits = `4${Array.from({ length: 15 }, () => next() % 10).join('')}`;
      if (luhnValid(digits)) continue;
      tried += 1;
      assert.deepEqual(detectPii(`card ${digits}`, new Set(['CREDIT_CARD'])), [], digits);
    }
  });
});

describe('gateway.pii', () => {
  const text = 'Reach me at ada@example.com or +44 20 7946 0958; card 4111 1111 1111 1111 from 10.0.0.7.';

  it('redacts several categories in one text, and reports positions and counts, not the values', async () => {
    const verdict = await runOne(registry, 'gateway.pii', { redact: true }, { text });
    assert.equal(verdict.verdict, false);
    assert.equal(
      verdict.redacted,
      'Reach me at [REDACTED_EMAIL_ADDRESS] or [REDACTED_PHONE_NUMBER]; card [REDACTED_CREDIT_CARD] from [REDACTED_IP_ADDRESS].',
    );
    assert.deepEqual((verdict.data as { counts: unknown }).counts, { EMAIL_ADDRESS: 1, PHONE_NUMBER: 1, CREDIT_CARD: 1, IP_ADDRESS: 1 });
    assert.ok(!JSON.stringify(verdict.data).includes('ada@'));
    assert.equal(verdict.explanation, 'PII found and redacted: EMAIL_ADDRESS x1, PHONE_NUMBER x1, CREDIT_CARD x1, IP_ADDRESS x1.');
  });

  it('without redact, fails and carries no redacted text', async () => {
    const verdict = await runOne(registry, 'gateway.pii', {}, { text });
    assert.equal(verdict.verdict, false);
    assert.equal(verdict.redacted, undefined);
  });

  it('passes clean text', async () => {
    const verdict = await runOne(registry, 'gateway.pii', { redact: true }, { text: 'Nothing personal in version 1.2.3.4.5.' });
    assert.equal(verdict.verdict, true);
    assert.equal(verdict.redacted, undefined);
  });

  it('looks only for the configured categories', async () => {
    const verdict = await runOne(registry, 'gateway.pii', { categories: ['EMAIL_ADDRESS'], redact: true }, { text });
    assert.equal(
      verdict.redacted,
      'Reach me at [REDACTED_EMAIL_ADDRESS] or +44 20 7946 0958; card 4111 1111 1111 1111 from 10.0.0.7.',
    );
    const clean = await runOne(registry, 'gateway.pii', { categories: ['SSN'] }, { text });
    assert.equal(clean.verdict, true);
  });

  it('default.pii is the same check', async () => {
    const verdict = await runOne(registry, 'default.pii', { redact: true }, { text: 'ssn 123-45-6789' });
    assert.equal(verdict.redacted, 'ssn [REDACTED_SSN]');
  });

  it('rejects categories it cannot detect, naming the entry', async () => {
    await rejects400(runOne(registry, 'gateway.pii', { categories: ['EMAIL_ADDRESS', 'NAME'] }), 'checks[0].parameters.categories[1]');
    await rejects400(runOne(registry, 'gateway.pii', { categories: ['LOCATION_ADDRESS'] }), 'checks[0].parameters.categories[0]');
    await rejects400(runOne(registry, 'gateway.pii', { categories: ['PASSPORT'] }), 'checks[0].parameters.categories[0]');
    await rejects400(runOne(registry, 'gateway.pii', { redact: 'yes' }), 'checks[0].parameters.redact');
  });

  it('runChecks merges the redactions of several PII checks into one text', async () => {
    const result = await runChecks(
      [
        { id: 'gateway.pii', parameters: { categories: ['EMAIL_ADDRESS'], redact: true } },
        { id: 'gateway.pii', parameters: { categories: ['CREDIT_CARD', 'IP_ADDRESS'], redact: true } },
        { id: 'gateway.pii', parameters: { categories: ['PHONE_NUMBER'] } }, // detects, does not redact
      ],
      makeContext({ text }),
      { registry },
    );
    assert.equal(result.passed, false);
    assert.equal(
      result.redactedText,
      'Reach me at [REDACTED_EMAIL_ADDRESS] or +44 20 7946 0958; card [REDACTED_CREDIT_CARD] from [REDACTED_IP_ADDRESS].',
    );
  });
});
