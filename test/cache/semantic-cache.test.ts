/**
 * The semantic cache with a deterministic fake embedder: a bag of words hashed into 64 dimensions. Case and
 * punctuation vanish (score 1), a swapped word lowers the score well below the threshold. Thresholds are also
 * checked with hand-made vectors at a known cosine.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { cacheKey } from '../../src/cache/cache-key.ts';
import { createResponseCache } from '../../src/cache/response-cache.ts';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import { createSemanticCache, DEFAULT_SEMANTIC_THRESHOLD, type SemanticEntryMeta } from '../../src/cache/semantic/semantic-cache.ts';
import { semanticInput } from '../../src/cache/semantic/prompt.ts';
import { createFlatIndex } from '../../src/cache/semantic/vector-index.ts';

const DIMENSIONS = 64;

async function fakeEmbed(text: string): Promise<Float32Array> {
  const vector = new Float32Array(DIMENSIONS);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const slot = createHash('sha256').update(word).digest().readUInt16BE(0) % DIMENSIONS;
    vector[slot] = (vector[slot] ?? 0) + 1;
  }
  return vector;
}

function at(cosine: number): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  vector[0] = cosine;
  vector[1] = Math.sqrt(1 - cosine * cosine);
  return vector;
}

function setup(options: { threshold?: number; maxEntries?: number; now?: () => number } = {}) {
  const index = createFlatIndex<SemanticEntryMeta>({ dimensions: DIMENSIONS, capacity: 100 });
  return { index, cache: createSemanticCache({ index, ...options }) };
}

const scope = { namespace: 'team-a', model: 'gpt-4o-mini', variant: 'v1' };

describe('semantic cache', () => {
  test('the default threshold is 0.95', () => {
    assert.equal(DEFAULT_SEMANTIC_THRESHOLD, 0.95);
    assert.equal(setup().cache.threshold, 0.95);
  });

  test('a paraphrase (case, punctuation) hits; another question misses', async () => {
    const { cache } = setup();
    cache.store({ ...scope, embedding: await fakeEmbed('What is the capital of France?'), key: 'k-france', maxAgeSeconds: 60 });
    const hit = cache.lookup({ ...scope, embedding: await fakeEmbed('what is the capital of france') });
    assert.equal(hit?.key, 'k-france');
    assert.ok((hit?.score ?? 0) > 0.999);
    assert.equal(cache.lookup({ ...scope, embedding: await fakeEmbed('What is the capital of Germany?') }), undefined);
  });

  test('the threshold: at it is a hit, just under it a miss', () => {
    const { cache } = setup({ threshold: 0.9 });
    cache.store({ ...scope, embedding: at(1), key: 'k', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, embedding: at(0.9005) })?.key, 'k');
    assert.equal(cache.lookup({ ...scope, embedding: at(0.8995) }), undefined);
    const strict = setup();
    strict.cache.store({ ...scope, embedding: at(1), key: 'k', maxAgeSeconds: 60 });
    assert.equal(strict.cache.lookup({ ...scope, embedding: at(0.96) })?.key, 'k');
    assert.equal(strict.cache.lookup({ ...scope, embedding: at(0.94) }), undefined);
  });

  test('only the same model matches', () => {
    const { cache } = setup();
    cache.store({ ...scope, embedding: at(1), key: 'mini', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, model: 'gpt-4o', embedding: at(1) }), undefined);
    cache.store({ ...scope, model: 'gpt-4o', embedding: at(0.97), key: 'big', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, model: 'gpt-4o', embedding: at(1) })?.key, 'big');
    assert.equal(cache.lookup({ ...scope, embedding: at(0.97) })?.key, 'mini');
  });

  test('only the same namespace matches; absent and empty are one namespace', () => {
    const { cache } = setup();
    cache.store({ ...scope, embedding: at(1), key: 'a', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, namespace: 'team-b', embedding: at(1) }), undefined);
    assert.equal(cache.lookup({ ...scope, namespace: undefined, embedding: at(1) }), undefined);
    cache.store({ model: scope.model, variant: scope.variant, embedding: at(1), key: 'none', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, namespace: '', embedding: at(1) })?.key, 'none');
  });

  test('only the same variant (the other params) matches', () => {
    const { cache } = setup();
    cache.store({ ...scope, embedding: at(1), key: 'a', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, variant: 'v2', embedding: at(1) }), undefined);
  });

  test('entries expire with their max age and are swept when met', () => {
    let now = 0;
    const { cache, index } = setup({ now: () => now });
    cache.store({ ...scope, embedding: at(1), key: 'a', maxAgeSeconds: 10 });
    now = 9_999;
    assert.equal(cache.lookup({ ...scope, embedding: at(1) })?.key, 'a');
    now = 10_000;
    assert.equal(cache.lookup({ ...scope, embedding: at(1) }), undefined);
    assert.equal(index.size, 0);
    assert.equal(cache.size, 0);
  });

  test('maxEntries bounds the entries, least recently used out first', () => {
    const { cache } = setup({ maxEntries: 2 });
    cache.store({ ...scope, embedding: at(1), key: 'first', maxAgeSeconds: 60 });
    cache.store({ ...scope, embedding: at(0.5), key: 'second', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, embedding: at(1) })?.key, 'first');
    cache.store({ ...scope, embedding: at(0), key: 'third', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, embedding: at(1) })?.key, 'first', 'used, so kept');
    assert.equal(cache.lookup({ ...scope, embedding: at(0.5) }), undefined, 'least recently used, so dropped');
  });

  test('maxEntries without lookups drops the oldest; forget drops one', () => {
    const { cache, index } = setup({ maxEntries: 2 });
    cache.store({ ...scope, embedding: at(1), key: 'first', maxAgeSeconds: 60 });
    cache.store({ ...scope, embedding: at(0.5), key: 'second', maxAgeSeconds: 60 });
    cache.store({ ...scope, embedding: at(0), key: 'third', maxAgeSeconds: 60 });
    assert.equal(cache.size, 2);
    assert.equal(index.size, 2);
    assert.equal(cache.lookup({ ...scope, embedding: at(1) }), undefined);
    cache.forget('third');
    assert.equal(cache.lookup({ ...scope, embedding: at(0) }), undefined);
    assert.equal(cache.size, 1);
  });

  test('a vector of the wrong dimensions is refused, not silently compared', () => {
    const { cache } = setup();
    assert.throws(() => cache.lookup({ ...scope, embedding: new Float32Array(3).fill(1) }), RangeError);
    assert.throws(() => cache.store({ ...scope, embedding: new Float32Array(3).fill(1), key: 'k', maxAgeSeconds: 60 }), RangeError);
  });

  test('a lookup may ask for its own threshold (a config sets it per target)', () => {
    const { cache } = setup();
    cache.store({ ...scope, embedding: at(1), key: 'k', maxAgeSeconds: 60 });
    assert.equal(cache.lookup({ ...scope, embedding: at(0.97) })?.key, 'k');
    assert.equal(cache.lookup({ ...scope, embedding: at(0.97), threshold: 0.99 }), undefined);
    assert.equal(cache.lookup({ ...scope, embedding: at(0.85), threshold: 0.8 })?.key, 'k');
  });
});

describe('semanticInput', () => {
  const chat = (last: string, extra: Record<string, unknown> = {}) => ({
    provider: 'openai',
    route: 'chat/completions',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: last }], ...extra },
  });

  test('embeds the final user turn; the rest (history, params, provider, route) forms the variant', () => {
    const a = semanticInput(chat('What is the capital of France?'));
    assert.equal(a?.text, 'What is the capital of France?');
    const b = semanticInput(chat('Capital of France?', { stream: true, user: 'u1', model: 'other' }));
    assert.equal(b?.variant, a?.variant, 'stream, user and model are not part of the variant');
    assert.notEqual(semanticInput(chat('x', { temperature: 1 }))?.variant, a?.variant);
    assert.notEqual(semanticInput({ ...chat('x'), provider: 'azure-openai' })?.variant, a?.variant);
    const other = chat('x');
    other.body.messages[0] = { role: 'system', content: 'Be verbose.' };
    assert.notEqual(semanticInput(other)?.variant, a?.variant);
  });

  test('text parts are joined; completions prompts are embedded too', () => {
    const parts = chat('');
    parts.body.messages[1] = { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] } as never;
    assert.equal(semanticInput(parts)?.text, 'a\nb');
    assert.equal(semanticInput({ provider: 'openai', route: 'completions', body: { model: 'm', prompt: ['Say hi'] } })?.text, 'Say hi');
  });

  test('requests with no final text user turn are not semantically cacheable', () => {
    const image = chat('');
    image.body.messages[1] = { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] } as never;
    assert.equal(semanticInput(image), undefined);
    assert.equal(semanticInput(chat('   ')), undefined);
    const toolTurn = chat('x');
    toolTurn.body.messages.push({ role: 'tool', content: '42', tool_call_id: 'c1' } as never);
    assert.equal(semanticInput(toolTurn), undefined);
    assert.equal(semanticInput({ provider: 'p', route: 'r', body: 'not an object' }), undefined);
  });
});

describe('exact match first, then semantic', () => {
  test('a paraphrase misses the exact cache, finds the earlier key semantically, and reads its answer', async () => {
    const responses = createResponseCache({ kv: createMemoryStore() });
    const { cache } = setup();
    const request = (content: string) => ({
      provider: 'openai',
      route: 'chat/completions',
      namespace: 'team-a',
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] },
    });
    async function serve(content: string): Promise<{ source: 'exact' | 'semantic' | 'upstream'; body: string }> {
      const key = cacheKey(request(content));
      const exact = await responses.get(key);
      if (exact) return { source: 'exact', body: exact.body };
      const input = semanticInput(request(content));
      assert.ok(input);
      const embedding = await fakeEmbed(input.text);
      const scope = { namespace: 'team-a', model: 'gpt-4o-mini', variant: input.variant };
      const match = cache.lookup({ ...scope, embedding });
      const earlier = match && (await responses.get(match.key));
      if (earlier) return { source: 'semantic', body: earlier.body };
      const body = `{"answer":${JSON.stringify(content)}}`;
      await responses.set(key, { status: 200, contentType: 'application/json', body }, 60);
      cache.store({ ...scope, embedding, key, maxAgeSeconds: 60 });
      return { source: 'upstream', body };
    }
    assert.equal((await serve('What is the capital of France?')).source, 'upstream');
    assert.equal((await serve('What is the capital of France?')).source, 'exact');
    assert.deepEqual(await serve('what is the capital of france'), { source: 'semantic', body: '{"answer":"What is the capital of France?"}' });
    assert.equal((await serve('What is the capital of Spain?')).source, 'upstream');
  });
});
