/**
 * The shipped pricing catalog: it loads, covers every provider of the registry, agrees with the integrated model
 * catalog's prices (one source of truth), and a bad entry fails validation with a message naming it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { integratedModels } from '../../src/catalog/catalog.ts';
import { providerNames } from '../../src/providers/registry.ts';
import { ANY_MODEL, catalogPrice, shippedPricing, validatePricingCatalog } from '../../src/pricing/catalog.ts';
import { USD_PER_MILLION_SCALE, USD_PER_THOUSAND_SCALE, scaledNumber } from '../../src/pricing/money.ts';

const raw = JSON.parse(readFileSync(new URL('../../src/pricing/catalog.json', import.meta.url), 'utf8')) as {
  providers: Array<{ provider: string; read_on: string; models: Array<Record<string, unknown>> }>;
};

/** a copy of the shipped file with one change */
function changed(edit: (copy: typeof raw) => void): unknown {
  const copy = structuredClone(raw);
  edit(copy);
  return copy;
}

function rejects(data: unknown, pattern: RegExp): void {
  assert.throws(() => validatePricingCatalog(data), (error: unknown) => error instanceof Error && pattern.test(error.message));
}

test('every provider the gateway supports has prices, with the day they were compiled and where from', () => {
  for (const provider of providerNames()) {
    const prices = shippedPricing.get(provider);
    assert.ok(prices, `no prices for ${provider}`);
    assert.match(prices.readOn, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(prices.source.length > 0);
    assert.ok(prices.models.size > 0 || prices.anyModel, `${provider} lists no model`);
  }
});

test('one source of truth: every price of the integrated model catalog (models.json) is the pricing catalog\'s', () => {
  const fields = [
    ['input_per_million_tokens', 'input', USD_PER_MILLION_SCALE],
    ['output_per_million_tokens', 'output', USD_PER_MILLION_SCALE],
    ['cache_read_per_million_tokens', 'cacheRead', USD_PER_MILLION_SCALE],
    ['cache_write_per_million_tokens', 'cacheWrite', USD_PER_MILLION_SCALE],
    ['per_thousand_searches', 'search', USD_PER_THOUSAND_SCALE],
  ] as const;
  let compared = 0;
  for (const model of integratedModels) {
    for (const [field, key, scale] of fields) {
      const listed = model.pricing[field];
      if (listed === null || listed === undefined) continue;
      const price = catalogPrice(shippedPricing, model.provider, model.id);
      assert.ok(price, `${model.provider}/${model.id} has a ${field} in models.json but no entry in the pricing catalog`);
      assert.equal(price.price[key], scaledNumber(listed, scale), `${model.provider}/${model.id} ${field}`);
      compared += 1;
    }
  }
  assert.ok(compared > 100, `only ${compared} prices compared`);
});

test('lookups: by name, by alias, without a routing prefix, a self-hosted runtime\'s any model; nothing else', () => {
  assert.equal(catalogPrice(shippedPricing, 'openai', 'gpt-4o')?.model, 'gpt-4o');
  assert.equal(catalogPrice(shippedPricing, 'anthropic', 'claude-sonnet-4-5')?.model, 'claude-sonnet-4-5-20250929');
  assert.equal(catalogPrice(shippedPricing, 'bedrock', 'eu.anthropic.claude-sonnet-4-20250514-v1:0')?.model, 'anthropic.claude-sonnet-4-20250514-v1:0');
  assert.equal(catalogPrice(shippedPricing, 'vllm', 'any/model-at-all')?.model, ANY_MODEL);
  assert.equal(catalogPrice(shippedPricing, 'vllm', 'x')?.price.input, 0n);
  assert.equal(catalogPrice(shippedPricing, 'openai', 'us.gpt-4o'), undefined, 'prefixes are per provider');
  assert.equal(catalogPrice(shippedPricing, 'openai', 'no-such-model'), undefined);
  assert.equal(catalogPrice(shippedPricing, 'no-such-provider', 'gpt-4o'), undefined);
});

test('the shipped file passes; a bad entry fails validation, naming it', () => {
  assert.ok(validatePricingCatalog(raw).size > 0);
  rejects(changed((copy) => { copy.providers[0]!.models[0]!.input = '1.2345678'; }), /\/providers\/0\/models\/0\/input/);
  rejects(changed((copy) => { copy.providers[0]!.models[0]!.input = 2.5; }), /\/providers\/0\/models\/0\/input/);
  rejects(changed((copy) => { copy.providers[0]!.models[0]!.output = '-1'; }), /\/providers\/0\/models\/0\/output/);
  rejects(changed((copy) => { copy.providers[0]!.models[0]!.surprise = '1'; }), /\/providers\/0\/models\/0/);
  rejects(changed((copy) => { copy.providers[0]!.models.push({ model: 'gpt-4o', input: '1' }); }), /duplicate model openai\/gpt-4o/);
  rejects(changed((copy) => { copy.providers[0]!.models.push({ model: 'new-model', input: '1', aliases: ['gpt-4o'] }); }), /duplicate model openai\/gpt-4o/);
  rejects(changed((copy) => { copy.providers[0]!.models.push({ model: 'no-price' }); }), /model "no-price" lists no price/);
  rejects(changed((copy) => { copy.providers[0]!.provider = 'no-such-provider'; }), /unknown provider "no-such-provider"/);
  rejects(changed((copy) => { copy.providers.push(structuredClone(copy.providers[0]!)); }), /provider "openai" is listed twice/);
  rejects(changed((copy) => { copy.providers[0]!.read_on = '2026-02-30'; }), /read_on: "2026-02-30" is not a date/);
  rejects(changed((copy) => { copy.providers[0]!.models = []; }), /\/providers\/0\/models/);
});
