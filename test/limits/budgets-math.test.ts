/**
 * The arithmetic under the budgets: exact units (tokens, nano-dollars) from decimal text and back, calendar windows
 * (a week from Monday 00:00 UTC, a month from the 1st), counter keys, and the reservation estimate and settlement
 * amounts of a request.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fromUnits, maxCreditLimit, toUnits, unitsAsNumber } from '../../src/limits/budgets-amounts.ts';
import { DEFAULT_COMPLETION_TOKENS, estimateAmounts, estimateTokens, usedAmounts } from '../../src/limits/budgets-estimate.ts';
import { counterKey, currentWindow } from '../../src/limits/budgets-keys.ts';
import { inlineBudget } from '../../src/limits/budgets-limits.ts';
import { isCurrentPeriod, nextPeriodStart, periodStart } from '../../src/limits/budgets-period.ts';
import type { ModelPrice } from '../../src/pricing/model-price.ts';

describe('units', () => {
  test('decimal text and numbers to units and back, exactly, rounding down', () => {
    assert.equal(toUnits('12.5', 'cost'), 12_500_000_000);
    assert.equal(toUnits('0.000000150000', 'cost'), 150);
    assert.equal(toUnits(1e-7, 'cost'), 100);
    assert.equal(toUnits(0.1, 'cost'), 100_000_000, '0.1 is not a float that drifts');
    assert.equal(toUnits('0.0000000019', 'cost'), 1, 'below a nano-dollar is cut, never rounded up');
    assert.equal(toUnits('1000.000000000000', 'tokens'), 1000);
    assert.equal(toUnits(-1, 'tokens'), undefined);
    assert.equal(toUnits('abc', 'cost'), undefined);
    assert.equal(fromUnits(12_500_000_001, 'cost'), '12.500000001');
    assert.equal(fromUnits(42, 'tokens'), '42');
    assert.equal(unitsAsNumber(250_000_000, 'cost'), 0.25);
  });

  test('the largest limit stays exact in a double, reservations on top', () => {
    assert.ok(Number.isSafeInteger(toUnits(maxCreditLimit('cost'), 'cost')! * 2));
    assert.ok(Number.isSafeInteger(maxCreditLimit('tokens') * 2));
  });
});

describe('windows', () => {
  const wednesday = new Date('2025-03-12T15:30:00Z');

  test('a week starts on Monday 00:00 UTC, a month on the 1st; a cumulative budget has one window', () => {
    assert.equal(periodStart(wednesday, 'weekly')!.toISOString(), '2025-03-10T00:00:00.000Z');
    assert.equal(periodStart(new Date('2025-03-16T23:59:59Z'), 'weekly')!.toISOString(), '2025-03-10T00:00:00.000Z', 'Sunday ends the week');
    assert.equal(periodStart(new Date('2025-03-17T00:00:00Z'), 'weekly')!.toISOString(), '2025-03-17T00:00:00.000Z');
    assert.equal(periodStart(wednesday, 'monthly')!.toISOString(), '2025-03-01T00:00:00.000Z');
    assert.equal(nextPeriodStart(wednesday, 'weekly')!.toISOString(), '2025-03-17T00:00:00.000Z');
    assert.equal(nextPeriodStart(new Date('2025-12-31T23:00:00Z'), 'monthly')!.toISOString(), '2026-01-01T00:00:00.000Z');
    assert.equal(periodStart(wednesday, null), null);
    assert.equal(nextPeriodStart(wednesday, null), null);
  });

  test('a stored entity counts only in its own window', () => {
    assert.equal(isCurrentPeriod(new Date('2025-03-10T00:00:00Z'), wednesday, 'weekly'), true);
    assert.equal(isCurrentPeriod(new Date('2025-03-03T00:00:00Z'), wednesday, 'weekly'), false);
    assert.equal(isCurrentPeriod(null, wednesday, null), true);
    assert.equal(isCurrentPeriod(new Date('2025-03-10T00:00:00Z'), wednesday, null), false, 'a weekly row is not a cumulative budget\'s usage');
  });

  test('counter keys: one per window; a provider\'s reset starts a new one; long value keys are hashed', () => {
    const owner = { kind: 'policy' as const, policyId: 'p1', valueKey: 'metadata._user:ada' };
    const thisWeek = currentWindow(owner, 'weekly', wednesday);
    assert.equal(thisWeek.counter, `budget:p:p1:${Date.parse('2025-03-10T00:00:00Z')}:metadata._user:ada`);
    assert.equal(thisWeek.expiresAt, Date.parse('2025-03-18T00:00:00Z'), 'a day after the window ends');
    assert.notEqual(currentWindow(owner, 'weekly', new Date('2025-03-17T00:00:00Z')).counter, thisWeek.counter);
    assert.equal(currentWindow(owner, null, wednesday).expiresAt, 0);
    const provider = (resetAt: Date | null) => counterKey({ kind: 'provider', id: 'v1', resetAt }, null);
    assert.notEqual(provider(null), provider(new Date('2025-03-01T00:00:00Z')));
    const long = counterKey({ kind: 'policy', policyId: 'p1', valueKey: `metadata._user:${'x'.repeat(500)}` }, null);
    assert.ok(long.length < 120 && long.includes('sha256:'));
  });
});

describe('estimates', () => {
  const body = (fields: Record<string, unknown>) => ({ body: fields, rawBody: Buffer.from(JSON.stringify(fields)) });
  const messages = [{ role: 'user', content: 'x'.repeat(395) }];

  test('chat: a token per 4 bytes of the body, plus the completion cap times n, or the default', () => {
    const capped = body({ model: 'm', messages, max_tokens: 50 });
    assert.deepEqual(estimateTokens({ route: 'chat', ...capped }), { prompt: Math.ceil(capped.rawBody.length / 4), completion: 50 });
    assert.equal(estimateTokens({ route: 'chat', ...body({ model: 'm', messages, max_completion_tokens: 70, max_tokens: 50 }) }).completion, 70);
    assert.equal(estimateTokens({ route: 'chat', ...body({ model: 'm', messages, max_tokens: 50, n: 3 }) }).completion, 150);
    assert.equal(estimateTokens({ route: 'chat', ...body({ model: 'm', messages }) }).completion, DEFAULT_COMPLETION_TOKENS);
    assert.equal(estimateTokens({ route: 'responses.create', ...body({ model: 'm', input: 'hi', max_output_tokens: 9 }) }).completion, 9);
  });

  test('embeddings and rerank generate nothing; reads reserve nothing; a pass-through generates when its body asks to', () => {
    assert.equal(estimateTokens({ route: 'embeddings', ...body({ model: 'm', input: 'hello' }) }).completion, 0);
    assert.deepEqual(estimateTokens({ route: 'models', body: undefined, rawBody: undefined }), { prompt: 0, completion: 0 });
    assert.equal(estimateTokens({ route: 'passthrough', ...body({ model: 'm', messages, max_tokens: 5 }) }).completion, 5);
    assert.equal(estimateTokens({ route: 'passthrough', ...body({ purpose: 'batch' }) }).completion, 0);
  });

  const price: ModelPrice = { input: 2_500_000n, output: 10_000_000n, cacheRead: null, cacheWrite: null, reasoning: null, search: null };

  test('cost: prompt at the input price, completion at the output price, in nano-dollars rounded up; no price: unknown', () => {
    assert.deepEqual(estimateAmounts({ prompt: 100, completion: 50 }, price), { tokens: 150, cost: 750_000 });
    assert.deepEqual(estimateAmounts({ prompt: 1, completion: 0 }, { ...price, input: 1n }), { tokens: 1, cost: 1 }, 'a picodollar is a whole nano-dollar');
    assert.deepEqual(estimateAmounts({ prompt: 100, completion: 50 }, null), { tokens: 150, cost: undefined });
    assert.deepEqual(estimateAmounts({ prompt: 100, completion: 50 }, { ...price, output: null }), { tokens: 150, cost: undefined });
  });

  test('settlement: the usage reported, priced; no usage: unknown (the reservation is charged)', () => {
    assert.deepEqual(usedAmounts({ prompt: 10, completion: 5, total: 15 }, price), { tokens: 15, cost: 75_000 });
    assert.deepEqual(usedAmounts({ prompt: 10, completion: 5, total: 15 }, null), { tokens: 15, cost: undefined });
    assert.equal(usedAmounts(undefined, price), undefined);
  });
});

describe('inline usage limits', () => {
  test('read as stored on keys, providers (an object) and workspaces (an array of one); no credit limit: no budget', () => {
    assert.deepEqual(inlineBudget({ credit_limit: 100, type: 'tokens', alert_threshold: 80, periodic_reset: 'weekly' }), { type: 'tokens', reset: 'weekly', limit: 100, threshold: 80 });
    assert.deepEqual(inlineBudget([{ credit_limit: 5 }]), { type: 'cost', reset: null, limit: 5_000_000_000, threshold: -1 }, 'cost is the default type');
    assert.deepEqual(inlineBudget({ credit_limit: 10, type: 'tokens', alert_threshold: 10 }), { type: 'tokens', reset: null, limit: 10, threshold: -1 }, 'a threshold at the limit is no threshold');
    assert.equal(inlineBudget({ type: 'tokens' }), null);
    assert.equal(inlineBudget([]), null);
    assert.equal(inlineBudget(null), null);
  });
});
