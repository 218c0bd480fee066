/**
 * The cache step (`lookupCache`) with the real registry and upstream client against the fake OpenAI upstream:
 * what it embeds, when it skips the embedding, the answer that vanished from the response cache, and the
 * embedding call's own pieces (its headers, reading a vector).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AbortLink } from '../../src/core/abort-link.ts';
import type { GatewayHeaders } from '../../src/core/context.ts';
import { createResponseCache } from '../../src/cache/response-cache.ts';
import { lookupCache, NO_EMBEDDING_WARNING, type CacheStepInput } from '../../src/cache/semantic-pipeline.ts';
import { embedText, embeddingHeaders, EMBEDDING_TIMEOUT_MS, vectorOf } from '../../src/pipeline/steps/semantic-embedding.ts';
import { createSemanticCaches, type SemanticCaches } from '../../src/cache/semantic/semantic-caches.ts';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import type { InferenceCall, RouteKind } from '../../src/providers/contract.ts';
import { createProviderRegistry } from '../../src/providers/registry.ts';
import type { PlannedCache, PlannedEmbedding } from '../../src/routing/target-settings.ts';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.ts';
import { parseAllowlist } from '../../src/upstream/ssrf-guard.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';

let upstream: FakeUpstream;
let client: UpstreamClient;
let semantic: SemanticCaches;
const kv = createMemoryStore();
const responses = createResponseCache({ kv });
const allowlist = parseAllowlist(['127.0.0.1']);

before(async () => {
  upstream = await startFakeUpstream();
  client = createUpstreamClient({ allowlist });
  semantic = await createSemanticCaches({ kv, nodeId: 'test-node', log: { warn: () => {} } });
});

after(async () => {
  await semantic.close();
  await client.close();
  await upstream.close();
  await kv.close();
});

const headers = (extra: Partial<GatewayHeaders> = {}): GatewayHeaders => ({
  trace: { traceId: 't', spanId: undefined, parentSpanId: undefined, spanName: undefined },
  metadata: {},
  provider: 'openai',
  providerSlug: undefined,
  virtualKey: undefined,
  config: undefined,
  customHost: upstream.baseUrl,
  providerToken: 'sk-chat',
  cacheForceRefresh: false,
  cacheNamespace: 'pipeline',
  requestTimeoutMs: undefined,
  fetchIntegratedModels: undefined,
  forwardHeaders: ['x-trace'],
  sensitiveHeaders: [],
  cloud: { 'azure-resource-name': 'chat-resource' },
  strictReferenceCompliance: undefined,
  ...extra,
});

const embedding: PlannedEmbedding = { provider: 'openai', model: 'words-64', apiKey: undefined, customHost: undefined, cloud: {} };
const settings = (extra: Partial<PlannedCache> = {}): PlannedCache => ({ mode: 'semantic', maxAgeSeconds: 60, similarityThreshold: undefined, embedding, ...extra });

function chat(content: unknown, route: RouteKind = 'chat'): InferenceCall {
  const body = { model: 'echo', messages: [{ role: 'user', content }] };
  // a test builds calls of any route from a chat body: the route/body pairing is what it exercises
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody: Buffer.from(JSON.stringify(body)), contentType: 'application/json', params: {} } as InferenceCall;
}

const embedDeps = () => ({ registry: createProviderRegistry(), allowlist, upstream: client });
const deps = () => ({ semantic, embed: (text: string, target: PlannedEmbedding, attempt: GatewayHeaders, gone: AbortLink) => embedText(text, target, attempt, gone, embedDeps()) });
const step = (call: InferenceCall, extra: Partial<CacheStepInput> = {}) =>
  lookupCache({ settings: settings(), responses, call, provider: 'openai', headers: headers(), clientGone: new AbortLink(), ...extra }, deps());
const embeddingCalls = () => upstream.requests.filter((request) => request.url === '/v1/embeddings');

describe('lookupCache', () => {
  test('a miss embeds once with the target\'s credentials, and records the entry only once the answer is stored', async () => {
    const before = embeddingCalls().length;
    const miss = await step(chat('Where is the Eiffel tower'));
    assert.equal(miss?.status, 'MISS');
    const calls = embeddingCalls().slice(before);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]?.json, { model: 'words-64', input: 'Where is the Eiffel tower' });
    assert.equal(calls[0]?.headers.authorization, 'Bearer sk-chat');
    assert.equal(calls[0]?.headers['x-trace'], undefined);
    const sizeBefore = semantic.size;
    assert.ok(miss?.plan.onStored, 'the plan records the prompt after the store');
    miss.plan.onStored();
    assert.equal(semantic.size, sizeBefore + 1);
  });

  test('an entry whose answer left the response cache is forgotten and the request misses', async () => {
    const first = await step(chat('Where is the Colosseum'));
    await responses.set(first!.plan.key, { status: 200, contentType: 'application/json', body: '{"answer":1}' }, 60);
    first!.plan.onStored!();
    const hit = await step(chat('where is the colosseum?'));
    assert.equal(hit?.status, 'SEMANTIC HIT');
    assert.equal(hit?.cached?.body, '{"answer":1}');
    await responses.delete(first!.plan.key);
    const size = semantic.size;
    const gone = await step(chat('WHERE is the Colosseum'));
    assert.equal(gone?.status, 'MISS');
    assert.equal(semantic.size, size - 1, 'the dangling entry was dropped');
  });

  test('no embedding for what cannot be cached semantically', async () => {
    const before = embeddingCalls().length;
    const image = await step(chat([{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }]));
    assert.equal(image?.status, 'MISS');
    assert.equal(await step(chat('x', 'rerank')), undefined, 'a route the cache does not keep');
    const embeddingsRoute = await step({ ...chat('x', 'embeddings'), body: { model: 'm', input: 'x' } } as InferenceCall);
    assert.equal(embeddingsRoute?.status, 'MISS', 'embeddings are cached by exact match only');
    const simple = await step(chat('Where is the Eiffel tower'), { settings: settings({ mode: 'simple' }) });
    assert.deepEqual(simple?.warnings, []);
    const noTarget = await step(chat('Where is the Eiffel tower'), { settings: settings({ embedding: undefined }) });
    assert.deepEqual(noTarget?.warnings, [NO_EMBEDDING_WARNING]);
    assert.equal(embeddingCalls().length, before);
  });
});

describe('the embedding call', () => {
  test('a same-provider embedding shares the target\'s credentials it leaves out; another provider gets none', () => {
    const same = embeddingHeaders(embedding, headers());
    assert.equal(same.providerToken, 'sk-chat');
    assert.equal(same.customHost, upstream.baseUrl);
    assert.deepEqual(same.cloud, { 'azure-resource-name': 'chat-resource' });
    assert.deepEqual(same.forwardHeaders, []);
    assert.equal(same.requestTimeoutMs, EMBEDDING_TIMEOUT_MS);
    const own = embeddingHeaders({ ...embedding, apiKey: 'sk-embed', customHost: 'https://embed.example.com/v1', cloud: { 'azure-resource-name': 'mine' } }, headers());
    assert.equal(own.providerToken, 'sk-embed');
    assert.equal(own.customHost, 'https://embed.example.com/v1');
    assert.deepEqual(own.cloud, { 'azure-resource-name': 'mine' });
    const other = embeddingHeaders({ ...embedding, provider: 'voyage' }, headers({ requestTimeoutMs: 1000 }));
    assert.equal(other.provider, 'voyage');
    assert.equal(other.providerToken, undefined);
    assert.equal(other.customHost, undefined);
    assert.deepEqual(other.cloud, {});
    assert.equal(other.requestTimeoutMs, 1000, 'a shorter request timeout wins');
  });

  test('a vector is read from OpenAI\'s shape and checked', () => {
    assert.deepEqual([...vectorOf({ data: [{ embedding: [0.5, -1, 0] }] })], [0.5, -1, 0]);
    for (const answer of [{}, { data: [] }, { data: [{ embedding: [] }] }, { data: [{ embedding: 'AAAA' }] }, { data: [{ embedding: [1, 'x'] }] }, { data: [{ embedding: [0, 0] }] }]) {
      assert.throws(() => vectorOf(answer), Error, JSON.stringify(answer));
    }
  });
});

test('a cache store that fails (Redis away) makes a miss with a warning, never a failed request', async () => {
  const broken = { ...responses, get: async () => { throw new Error('Connection is closed.'); } };
  const result = await step(chat('Is the store there'), { responses: broken, settings: settings({ mode: 'simple', embedding: undefined }) });
  assert.equal(result?.status, 'MISS');
  assert.equal(result?.cached, undefined);
  assert.deepEqual(result?.warnings, ['response cache skipped: its store is unavailable']);
});
