import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  AI_SERVICES,
  integratedModels,
  listCatalogModels,
  parseModelsQuery,
  validateCatalog,
  type CatalogModel,
} from '../src/catalog/catalog.ts';
import { GatewayError } from '../src/core/errors.ts';
import { providerNames } from '../src/providers/registry.ts';

const rawText = readFileSync(new URL('../src/catalog/models.json', import.meta.url), 'utf8');

function model(provider: CatalogModel['provider'], id: string, ai_service: CatalogModel['ai_service']): CatalogModel {
  return {
    id,
    provider,
    ai_service,
    owned_by: provider,
    context_window: 1000,
    max_output_tokens: null,
    pricing: {
      currency: 'USD',
      input_per_million_tokens: 1,
      output_per_million_tokens: null,
      cache_read_per_million_tokens: null,
      cache_write_per_million_tokens: null,
    },
  };
}

const fixture: readonly CatalogModel[] = [
  model('openai', 'gpt-b', 'chat'),
  model('anthropic', 'claude-a', 'chat'),
  model('openai', 'emb-c', 'embedding'),
  model('cohere', 'rerank-d', 'rerank'),
  model('groq', 'Alpha', 'chat'),
  model('anthropic', 'gpt-b', 'chat'),
];

function ids(list: { data: { canonical_slug: string }[] }): string[] {
  return list.data.map((m) => m.canonical_slug);
}

function rejects(query: Record<string, unknown>, param: string): void {
  assert.throws(
    () => parseModelsQuery(query),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError);
      assert.equal(err.status, 400);
      assert.equal(err.type, 'invalid_request_error');
      assert.equal(err.param, param);
      return true;
    },
    `expected ${JSON.stringify(query)} to be rejected on ${param}`,
  );
}

describe('shipped models.json', () => {
  it('validates and loads', () => {
    const parsed: unknown = JSON.parse(rawText);
    const models = validateCatalog(parsed);
    assert.ok(models.length >= 60 && models.length <= 100, `has ${models.length} entries`);
    assert.equal(integratedModels.length, models.length);
    assert.ok(Object.isFrozen(integratedModels));
  });

  it('names only registered providers, spans most of them, and only known services', () => {
    const registered = new Set(providerNames());
    const providers = new Set(integratedModels.map((m) => m.provider));
    for (const p of providers) assert.ok(registered.has(p), `${p} is not in the provider registry`);
    assert.ok(providers.size >= 15, `only ${providers.size} providers have catalog entries`);
    for (const m of integratedModels) assert.ok((AI_SERVICES as readonly string[]).includes(m.ai_service));
  });

  it('has unique ids per provider', () => {
    const seen = new Set<string>();
    for (const m of integratedModels) {
      const key = `${m.provider}/${m.id}`;
      assert.ok(!seen.has(key), `duplicate ${key}`);
      seen.add(key);
    }
  });

  it('has sane numbers', () => {
    for (const m of integratedModels) {
      for (const v of [m.context_window, m.max_output_tokens]) {
        if (v !== null) assert.ok(Number.isInteger(v) && v > 0, `${m.provider}/${m.id}`);
      }
      if (m.context_window !== null && m.max_output_tokens !== null) {
        assert.ok(m.max_output_tokens <= m.context_window, `${m.provider}/${m.id}`);
      }
      for (const v of Object.values(m.pricing)) {
        if (typeof v === 'number') assert.ok(Number.isFinite(v) && v >= 0, `${m.provider}/${m.id}`);
      }
    }
  });
});

describe('validateCatalog', () => {
  const good = JSON.parse(rawText) as Record<string, unknown>[];

  it('rejects a non-array', () => {
    assert.throws(() => validateCatalog({}), /Invalid model catalog/);
  });

  it('rejects duplicate provider/id pairs', () => {
    const first = good[0];
    assert.ok(first);
    assert.throws(() => validateCatalog([first, { ...first }]), /duplicate model/);
  });

  it('rejects an unknown provider, service, extra field or negative price', () => {
    const first = good[0];
    assert.ok(first);
    assert.throws(() => validateCatalog([{ ...first, provider: 'nope' }]), /Invalid model catalog/);
    assert.throws(() => validateCatalog([{ ...first, ai_service: 'video' }]), /Invalid model catalog/);
    assert.throws(() => validateCatalog([{ ...first, extra: 1 }]), /Invalid model catalog/);
    const pricing = { ...(first['pricing'] as Record<string, unknown>), input_per_million_tokens: -1 };
    assert.throws(() => validateCatalog([{ ...first, pricing }]), /Invalid model catalog/);
  });

  it('takes its provider names from the provider registry', () => {
    const first = good[0];
    assert.ok(first);
    // registered providers the catalog ships no model for are still valid names
    for (const provider of providerNames()) assert.equal(validateCatalog([{ ...first, provider }])[0]?.provider, provider);
    assert.throws(() => validateCatalog([{ ...first, provider: 'nope' }]), /Invalid model catalog \(\/0\/provider: unknown provider "nope"/);
  });

  it('checks the provider against the list it is given', () => {
    const first = good[0];
    assert.ok(first);
    assert.equal(validateCatalog([{ ...first, provider: 'newcomer' }], ['newcomer']).length, 1);
    assert.throws(() => validateCatalog([first, { ...first, provider: 'openai-next' }], ['openai']), /\/1\/provider: unknown provider "openai-next"/);
  });

  it('accepts per_thousand_searches on pricing', () => {
    const [m] = validateCatalog([{ ...model('cohere', 'r', 'rerank'), pricing: { ...model('cohere', 'r', 'rerank').pricing, per_thousand_searches: 2 } }]);
    assert.equal(m?.pricing.per_thousand_searches, 2);
  });
});

describe('listCatalogModels', () => {
  it('returns the view shape with id = model id and canonical_slug = provider/id', () => {
    const list = listCatalogModels(integratedModels, { provider: 'openai', limit: 1000 });
    assert.equal(list.object, 'list');
    const item = list.data.find((m) => m.id === 'gpt-4o-mini');
    assert.ok(item);
    assert.equal(item.object, 'model');
    assert.equal(item.created, 0);
    assert.equal(item.slug, 'gpt-4o-mini');
    assert.equal(item.canonical_slug, 'openai/gpt-4o-mini');
    assert.equal(item.provider, 'openai');
    assert.equal(item.owned_by, 'openai');
    assert.equal(item.pricing.currency, 'USD');
  });

  it('does not let callers mutate the catalog through a view', () => {
    const [item] = listCatalogModels(fixture, { limit: 1 }).data;
    assert.ok(item);
    item.pricing.input_per_million_tokens = 999;
    assert.equal(listCatalogModels(fixture, { limit: 1 }).data[0]?.pricing.input_per_million_tokens, 1);
  });

  it('filters by provider', () => {
    const list = listCatalogModels(fixture, { provider: 'openai' });
    assert.equal(list.total, 2);
    assert.deepEqual(ids(list), ['openai/emb-c', 'openai/gpt-b']);
    assert.equal(listCatalogModels(fixture, { provider: 'nope' }).total, 0);
  });

  it('filters by ai_service, alone and with provider', () => {
    assert.deepEqual(ids(listCatalogModels(fixture, { ai_service: 'rerank' })), ['cohere/rerank-d']);
    assert.deepEqual(ids(listCatalogModels(fixture, { provider: 'openai', ai_service: 'chat' })), ['openai/gpt-b']);
    const embeddings = listCatalogModels(integratedModels, { ai_service: 'embedding' });
    assert.ok(embeddings.total > 0);
    assert.ok(embeddings.data.every((m) => m.ai_service === 'embedding'));
  });

  it('sorts by name asc by default (case-insensitive, ties by provider)', () => {
    assert.deepEqual(ids(listCatalogModels(fixture, {})), [
      'groq/Alpha',
      'anthropic/claude-a',
      'openai/emb-c',
      'anthropic/gpt-b',
      'openai/gpt-b',
      'cohere/rerank-d',
    ]);
  });

  it('sorts by name desc as the exact reverse', () => {
    const asc = ids(listCatalogModels(fixture, { sort: 'name', order: 'asc' }));
    const desc = ids(listCatalogModels(fixture, { sort: 'name', order: 'desc' }));
    assert.deepEqual(desc, [...asc].reverse());
  });

  it('sorts by provider, then name', () => {
    assert.deepEqual(ids(listCatalogModels(fixture, { sort: 'provider' })), [
      'anthropic/claude-a',
      'anthropic/gpt-b',
      'cohere/rerank-d',
      'groq/Alpha',
      'openai/emb-c',
      'openai/gpt-b',
    ]);
    const providers = listCatalogModels(integratedModels, { sort: 'provider', order: 'desc' }).data.map((m) => m.provider);
    assert.deepEqual(providers, [...providers].sort().reverse());
  });

  it('sorts by ai_service', () => {
    const services = listCatalogModels(fixture, { sort: 'ai_service' }).data.map((m) => m.ai_service);
    assert.deepEqual(services, ['chat', 'chat', 'chat', 'chat', 'embedding', 'rerank']);
  });

  it('pages with limit and offset; total counts before paging', () => {
    const all = ids(listCatalogModels(fixture, {}));
    const page = listCatalogModels(fixture, { limit: 2, offset: 1 });
    assert.equal(page.total, 6);
    assert.deepEqual(ids(page), all.slice(1, 3));
    const tail = listCatalogModels(fixture, { limit: 10, offset: 4 });
    assert.equal(tail.total, 6);
    assert.deepEqual(ids(tail), all.slice(4));
    const past = listCatalogModels(fixture, { offset: 100 });
    assert.equal(past.total, 6);
    assert.deepEqual(past.data, []);
    const filteredPage = listCatalogModels(fixture, { provider: 'anthropic', limit: 1 });
    assert.equal(filteredPage.total, 2);
    assert.equal(filteredPage.data.length, 1);
  });

  it('pages through the whole shipped catalog without gaps or repeats', () => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 7) {
      const page = listCatalogModels(integratedModels, { limit: 7, offset });
      assert.equal(page.total, integratedModels.length);
      if (page.data.length === 0) break;
      seen.push(...ids(page));
    }
    assert.deepEqual(seen, ids(listCatalogModels(integratedModels, {})));
  });
});

describe('parseModelsQuery', () => {
  it('applies defaults', () => {
    assert.deepEqual(parseModelsQuery({}), { sort: 'name', order: 'asc' });
  });

  it('parses every parameter and ignores unknown ones', () => {
    assert.deepEqual(
      parseModelsQuery({
        provider: 'openai',
        ai_service: 'chat',
        sort: 'provider',
        order: 'desc',
        limit: '1000',
        offset: '0',
        other: 'x',
      }),
      { provider: 'openai', ai_service: 'chat', sort: 'provider', order: 'desc', limit: 1000, offset: 0 },
    );
    assert.deepEqual(parseModelsQuery({ limit: 1, offset: 5 }), { sort: 'name', order: 'asc', limit: 1, offset: 5 });
  });

  it('rejects a bad limit', () => {
    for (const limit of ['0', '1001', '-1', '1.5', 'abc', '', ' 5', '1e2', '0x10', ['5', '6'], true, 2.5]) {
      rejects({ limit }, 'limit');
    }
  });

  it('rejects a bad offset', () => {
    for (const offset of ['-1', '1.5', 'x', '', ['0', '1'], {}, Number.NaN]) rejects({ offset }, 'offset');
  });

  it('rejects a bad sort or order', () => {
    for (const sort of ['id', 'NAME', '', ['name']]) rejects({ sort }, 'sort');
    for (const order of ['up', 'ASC', '', ['asc']]) rejects({ order }, 'order');
  });

  it('rejects empty or repeated provider and ai_service', () => {
    rejects({ provider: '' }, 'provider');
    rejects({ provider: ['openai', 'groq'] }, 'provider');
    rejects({ ai_service: '  ' }, 'ai_service');
    rejects({ ai_service: { a: 1 } }, 'ai_service');
  });

  it('feeds listCatalogModels', () => {
    const list = listCatalogModels(integratedModels, parseModelsQuery({ provider: 'voyage', ai_service: 'rerank', limit: '1' }));
    assert.equal(list.data.length, 1);
    assert.ok(list.total >= 1);
    assert.equal(list.data[0]?.provider, 'voyage');
  });
});
