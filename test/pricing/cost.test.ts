/**
 * The cost math, pure: fixture pairs (a provider's usage + the catalog's price -> the cost, exact), custom prices,
 * the rules for unknown counts and prices, exact sums over a million requests, and the request log's columns.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Principal } from '../../src/core/context.ts';
import { logRow } from '../../src/logging/log-row.ts';
import { newRequestRecord, noteEarlierAttemptCost, recordCost } from '../../src/logging/request-record.ts';
import { usageOf } from '../../src/logging/usage.ts';
import { catalogPrice, shippedPricing } from '../../src/pricing/catalog.ts';
import { costOfUsage } from '../../src/pricing/cost.ts';
import { priceFromPayAsYouGo, type ModelPrice } from '../../src/pricing/model-price.ts';
import { usdText } from '../../src/pricing/money.ts';

interface Fixture {
  name: string;
  provider: string;
  model: string;
  usage: unknown;
  cost: string | null;
}

const fixtures = JSON.parse(readFileSync(new URL('./cost-fixtures.json', import.meta.url), 'utf8')) as Fixture[];

function costIn(provider: string, model: string, usage: unknown): string | null {
  const price = catalogPrice(shippedPricing, provider, model)?.price;
  const counted = usageOf(usage);
  const cost = price && counted ? costOfUsage(counted, price) : null;
  return cost === null ? null : usdText(cost);
}

for (const fixture of fixtures) {
  test(`cost fixture: ${fixture.name}`, () => {
    assert.equal(costIn(fixture.provider, fixture.model, fixture.usage), fixture.cost);
  });
}

/** a negotiated rate in cents per token, as the admin API takes it */
const custom: ModelPrice = priceFromPayAsYouGo({
  request_token: { price: 0.0001 },
  response_token: { price: 0.0003 },
  cache_read_input_token: { price: 0.00001 },
});

test('a custom price: cents per token, cache reads at their own price, reasoning and cache writes at the fallbacks', () => {
  // 900 x 1e-6 + 100 x 1e-7 + 50 x 3e-6 (cache write at input: 1e-6 each) ... in USD
  const usage = { prompt: 1050, completion: 400, total: 1450, cached: 100, cacheWrite: 50, reasoning: 300 };
  // input: (1050 - 100 - 50) x 1e-6 = 0.0009; cached: 100 x 1e-7 = 0.00001; written: 50 x 1e-6 = 0.00005
  // output: (400 - 300) x 3e-6 = 0.0003; reasoning: 300 x 3e-6 = 0.0009
  assert.equal(usdText(costOfUsage(usage, custom)!), '0.002160000000');
});

test('counts: a missing completion is read from the total, a missing prompt too, nothing known is unknown', () => {
  assert.equal(costOfUsage({ prompt: 10, completion: undefined, total: 15 }, custom), 10n * 10n ** 6n + 5n * 3n * 10n ** 6n);
  assert.equal(costOfUsage({ prompt: undefined, completion: 5, total: 15 }, custom), 10n * 10n ** 6n + 5n * 3n * 10n ** 6n);
  assert.equal(costOfUsage({ prompt: undefined, completion: 5, total: undefined }, custom), null);
  assert.equal(costOfUsage({ prompt: undefined, completion: undefined, total: undefined }, custom), null);
  assert.equal(costOfUsage(undefined, custom), null);
  // detail counts larger than their total are clamped: never a negative charge
  assert.equal(costOfUsage({ prompt: 10, completion: 0, total: 10, cached: 50, reasoning: 9 }, custom), 10n * 10n ** 5n);
});

test('a million small requests add up exactly (the float sum of the same costs drifts)', () => {
  const price = catalogPrice(shippedPricing, 'openai', 'gpt-5-nano')!.price;
  const usage = usageOf({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 })!;
  let sum = 0n;
  let floatSum = 0;
  for (let index = 0; index < 1_000_000; index += 1) {
    const cost = costOfUsage(usage, price)!;
    sum += cost;
    floatSum += Number(usdText(cost));
  }
  assert.equal(usdText(sum), '1.550000000000');
  assert.notEqual(floatSum, 1.55, 'the float sum drifts, which is why costs are integers');
});

test('usage: the detail counts are read only when reported', () => {
  assert.deepEqual(usageOf({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }), { prompt: 5, completion: 2, total: 7 });
  assert.deepEqual(
    usageOf({ prompt_tokens: 50, completion_tokens: 20, total_tokens: 70, prompt_tokens_details: { cached_tokens: 30, cache_creation_tokens: 10 }, completion_tokens_details: { reasoning_tokens: 15 } }),
    { prompt: 50, completion: 20, total: 70, cached: 30, cacheWrite: 10, reasoning: 15 },
  );
  assert.deepEqual(usageOf({ input_tokens: 10, cache_read_input_tokens: 20, cache_creation_input_tokens: 5, output_tokens: 1 }), { prompt: 35, completion: 1, total: 36, cached: 20, cacheWrite: 5 });
});

const principal: Principal = {
  kind: 'api_key', keyId: '00000000-0000-4000-8000-0000000000a1', keyHash: 'h', keyType: 'workspace', subType: 'service',
  organisationId: '00000000-0000-4000-8000-000000000001', workspaceId: '00000000-0000-4000-8000-000000000002',
  scopes: [], orgRole: null, workspaceRole: null, userId: null, expiresAt: null,
};

function row(record: ReturnType<typeof newRequestRecord>, status = 200, metadata: Record<string, unknown> = {}) {
  const gateway = { trace: { traceId: 't', spanId: undefined, parentSpanId: undefined, spanName: undefined }, metadata } as never;
  return logRow({ id: 'id', record, principal, gateway, fallbackTraceId: 't', method: 'POST', url: '/v1/chat/completions', requestBody: { model: 'm' }, rawBody: undefined, requestHeaders: {}, responseHeaders: {}, headersToMask: [], bodyCap: 0, status, completed: true, headersSent: true, endedAt: 1 });
}

test('the row: cost in USD with 12 decimals and the cached, cache-write and reasoning columns', () => {
  const record = newRequestRecord(0, 'chat');
  record.usage = usageOf({ prompt_tokens: 1050, completion_tokens: 400, total_tokens: 1450, prompt_tokens_details: { cached_tokens: 100, cache_creation_tokens: 50 }, completion_tokens_details: { reasoning_tokens: 300 } });
  record.price = custom;
  const written = row(record);
  assert.equal(written.cost, '0.002160000000');
  assert.deepEqual([written.cachedTokens, written.cacheWriteTokens, written.reasoningTokens], [100, 50, 300]);
});

test('the row: no price known or no usage on a 2xx answer is NULL, never 0; an error answer without usage is NULL too', () => {
  const unpriced = newRequestRecord(0, 'chat');
  unpriced.usage = usageOf({ prompt_tokens: 5, completion_tokens: 2 });
  unpriced.price = null;
  assert.equal(row(unpriced).cost, null);
  const noUsage = newRequestRecord(0, 'chat');
  noUsage.price = custom;
  assert.equal(row(noUsage).cost, null);
  assert.equal(row(noUsage, 502).cost, null);
  assert.deepEqual([row(noUsage).cachedTokens, row(noUsage).reasoningTokens], [null, null]);
});

test('the row: a cache hit costs 0 and its saving goes into saved_cost; the caller\'s metadata is untouched', () => {
  const record = newRequestRecord(0, 'chat');
  record.usage = usageOf({ prompt_tokens: 1000, completion_tokens: 0 });
  record.price = custom;
  record.servedFromCache = true;
  const written = row(record, 200, { team: 'search' });
  assert.equal(written.cost, '0.000000000000');
  assert.equal(written.savedCost, '0.001000000000');
  assert.deepEqual(written.metadata, { team: 'search' });
  record.price = null;
  assert.deepEqual(row(record, 200, { team: 'search' }).metadata, { team: 'search' }, 'no saving recorded when its price is unknown');
  assert.equal(row(record).cost, '0.000000000000', 'a hit costs nothing whatever the price');
});

test('the row: attempts that answered before the chosen one add their cost; one unknown makes the sum unknown', () => {
  const record = newRequestRecord(0, 'chat');
  record.usage = usageOf({ prompt_tokens: 10, completion_tokens: 0 });
  record.price = custom;
  noteEarlierAttemptCost(record, 5n);
  noteEarlierAttemptCost(record, 7n);
  assert.deepEqual(recordCost(record, true), { cost: 10n * 10n ** 6n + 12n, saved: null });
  const failed = newRequestRecord(0, 'chat');
  noteEarlierAttemptCost(failed, 5n);
  assert.deepEqual(recordCost(failed, false), { cost: 5n, saved: null }, 'the chosen error answer adds nothing');
  noteEarlierAttemptCost(failed, null);
  assert.deepEqual(recordCost(failed, false), { cost: null, saved: null });
});
