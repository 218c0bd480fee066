/**
 * The semantic cache end to end, with the official openai client through the real server. The fake upstream embeds
 * with a bag of hashed words (`words-64`), so a paraphrase that adds one word scores about 0.985 against the
 * question, an unrelated question far lower. Chat and embedding calls are counted at the upstream: the counts
 * prove where each answer came from. Each test uses its own cache namespace, so tests never see each other's
 * entries.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const QUESTION = 'What is the capital city of France and which river flows through it in the middle of the old town today';
const PARAPHRASE = `${QUESTION} please`;
const UNRELATED = 'How tall is Mount Everest';

let gateway: TestGateway;
let upstream: FakeUpstream;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

type Cache = Record<string, unknown>;

function semanticConfig(cache: Cache = {}, baseUrl = upstream.baseUrl) {
  return { provider: 'openai', custom_host: baseUrl, cache: { mode: 'semantic', max_age: 60, embedding: { provider: 'openai', model: 'words-64' }, ...cache } };
}

function client(origin: TestGateway, headers: Record<string, string>, config: unknown) {
  return new OpenAI({
    apiKey: 'sk-x',
    baseURL: origin.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': origin.adminKey, 'x-gateway-config': JSON.stringify(config), ...headers },
  });
}

/** Counts the upstream's chat and embedding calls since it was made. */
function counter(target: FakeUpstream = upstream) {
  const count = (path: string) => target.requests.filter((request) => request.url === path).length;
  const start = { chat: count('/v1/chat/completions'), embeddings: count('/v1/embeddings') };
  return () => ({ chat: count('/v1/chat/completions') - start.chat, embeddings: count('/v1/embeddings') - start.embeddings });
}

interface Ask {
  namespace: string;
  model?: string;
  cache?: Cache;
  headers?: Record<string, string>;
  via?: TestGateway;
}

async function ask(content: string, options: Ask) {
  const headers = { 'x-gateway-cache-namespace': options.namespace, ...options.headers };
  const { data, response } = await client(options.via ?? gateway, headers, semanticConfig(options.cache))
    .chat.completions.create({ model: options.model ?? 'echo', messages: [{ role: 'user', content }] })
    .withResponse();
  return { content: data.choices[0]?.message.content, status: response.headers.get('x-gateway-cache-status'), warnings: response.headers.get('x-gateway-warnings') };
}

const namespace = () => `semantic-${randomUUID()}`;

test('a question misses (one chat, one embedding call), a paraphrase is a SEMANTIC HIT with the first answer', async () => {
  const ns = namespace();
  const calls = counter();
  const first = await ask(QUESTION, { namespace: ns });
  assert.equal(first.status, 'MISS');
  assert.equal(first.content, `You asked: ${QUESTION}`);
  assert.deepEqual(calls(), { chat: 1, embeddings: 1 }, 'the embedding of the lookup is reused to store the entry');

  const second = await ask(PARAPHRASE, { namespace: ns });
  assert.equal(second.status, 'SEMANTIC HIT');
  assert.equal(second.content, `You asked: ${QUESTION}`, 'the answer stored for the first question');
  assert.deepEqual(calls(), { chat: 1, embeddings: 2 });

  const again = await ask(QUESTION, { namespace: ns });
  assert.equal(again.status, 'HIT', 'the exact match is asked first');
  assert.deepEqual(calls(), { chat: 1, embeddings: 2 }, 'an exact hit needs no embedding');
});

test('an unrelated question, another namespace and another model all miss', async () => {
  const ns = namespace();
  await ask(QUESTION, { namespace: ns });
  const calls = counter();
  assert.equal((await ask(UNRELATED, { namespace: ns })).status, 'MISS');
  assert.equal((await ask(PARAPHRASE, { namespace: namespace() })).status, 'MISS');
  const otherModel = await ask(PARAPHRASE, { namespace: ns, model: 'echo-other' });
  assert.equal(otherModel.status, 'MISS');
  assert.equal(otherModel.content, `You asked: ${PARAPHRASE}`);
  assert.deepEqual(calls(), { chat: 3, embeddings: 3 });
});

test('override_params set the model a match must share', async () => {
  const ns = namespace();
  await ask(QUESTION, { namespace: ns, cache: {} });
  const overridden = { ...semanticConfig(), override_params: { model: 'echo-overridden' } };
  const calls = counter();
  const { response } = await client(gateway, { 'x-gateway-cache-namespace': ns }, overridden)
    .chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: PARAPHRASE }] })
    .withResponse();
  assert.equal(response.headers.get('x-gateway-cache-status'), 'MISS');
  assert.deepEqual(calls(), { chat: 1, embeddings: 1 });
});

test('a streaming request is served from a semantic hit as a replayed stream ending in [DONE]', async () => {
  const ns = namespace();
  await ask(QUESTION, { namespace: ns });
  const calls = counter();
  const response = await client(gateway, { 'x-gateway-cache-namespace': ns }, semanticConfig())
    .chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: PARAPHRASE }], stream: true })
    .asResponse();
  assert.equal(response.headers.get('x-gateway-cache-status'), 'SEMANTIC HIT');
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const text = await response.text();
  assert.ok(text.endsWith('data: [DONE]\n\n'), text);
  const content = text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: {'))
    .map((frame) => (JSON.parse(frame.slice(6)) as OpenAI.ChatCompletionChunk).choices[0]?.delta.content ?? '')
    .join('');
  assert.equal(content, `You asked: ${QUESTION}`);
  assert.deepEqual(calls(), { chat: 0, embeddings: 1 });
});

test('similarity_threshold 0.99 turns the paraphrase into a miss; the default 0.95 keeps it a hit', async () => {
  const ns = namespace();
  await ask(QUESTION, { namespace: ns });
  const strict = await ask(PARAPHRASE, { namespace: ns, cache: { similarity_threshold: 0.99 } });
  assert.equal(strict.status, 'MISS');
  assert.equal(strict.content, `You asked: ${PARAPHRASE}`);
  const ns2 = namespace();
  await ask(QUESTION, { namespace: ns2 });
  assert.equal((await ask(PARAPHRASE, { namespace: ns2, cache: { similarity_threshold: 0.95 } })).status, 'SEMANTIC HIT');
});

test('a failing embedding provider never fails the request: a MISS with a warning', async () => {
  const ns = namespace();
  const failing = { embedding: { provider: 'openai', model: 'error-500' } };
  const calls = counter();
  const answer = await ask(QUESTION, { namespace: ns, cache: failing });
  assert.equal(answer.status, 'MISS');
  assert.equal(answer.content, `You asked: ${QUESTION}`);
  assert.match(answer.warnings ?? '', /semantic cache skipped, the embedding call failed: .*500/);
  assert.deepEqual(calls(), { chat: 1, embeddings: 1 });
  // nothing was recorded: a paraphrase through a working embedder misses
  assert.equal((await ask(PARAPHRASE, { namespace: ns })).status, 'MISS');
});

test('an embedding of an unreachable host is a miss too', async () => {
  const ns = namespace();
  const unreachable = { embedding: { provider: 'openai', model: 'words-64', custom_host: 'http://127.0.0.1:1/v1' } };
  const answer = await ask(QUESTION, { namespace: ns, cache: unreachable });
  assert.equal(answer.status, 'MISS');
  assert.match(answer.warnings ?? '', /embedding call failed/);
});

test('force refresh skips both lookups, calls the provider and stores the new answer', async () => {
  const ns = namespace();
  await ask(QUESTION, { namespace: ns });
  const calls = counter();
  const refreshed = await ask(PARAPHRASE, { namespace: ns, headers: { 'x-gateway-cache-force-refresh': 'true' } });
  assert.equal(refreshed.status, 'REFRESH');
  assert.equal(refreshed.content, `You asked: ${PARAPHRASE}`);
  assert.deepEqual(calls(), { chat: 1, embeddings: 1 });
  assert.equal((await ask(PARAPHRASE, { namespace: ns })).status, 'HIT');
});

test('semantic mode without an embedding target is exact match only, and says so', async () => {
  const ns = namespace();
  const calls = counter();
  const exactOnly = { embedding: undefined };
  const first = await ask(QUESTION, { namespace: ns, cache: exactOnly });
  assert.equal(first.status, 'MISS');
  assert.match(first.warnings ?? '', /no cache\.embedding target: exact match only/);
  assert.equal((await ask(PARAPHRASE, { namespace: ns, cache: exactOnly })).status, 'MISS');
  const hit = await ask(QUESTION, { namespace: ns, cache: exactOnly });
  assert.equal(hit.status, 'HIT');
  assert.match(hit.warnings ?? '', /exact match only/);
  assert.deepEqual(calls(), { chat: 2, embeddings: 0 });
});

test('config errors are 400s naming the path', async () => {
  const cases: Array<[Cache, string]> = [
    [{ embedding: { provider: 'openai' } }, 'config.cache.embedding.model'],
    [{ embedding: { provider: 'nope', model: 'm' } }, 'config.cache.embedding.provider'],
    [{ embedding: { provider: 'anthropic', model: 'm' } }, 'config.cache.embedding.provider'],
    [{ similarity_threshold: 0 }, 'config.cache.similarity_threshold'],
    [{ similarity_threshold: 1.5 }, 'config.cache.similarity_threshold'],
    [{ mode: 'simple', similarity_threshold: 0.9, embedding: undefined }, 'config.cache.similarity_threshold'],
  ];
  for (const [cache, param] of cases) {
    const calls = counter();
    await assert.rejects(
      client(gateway, {}, semanticConfig(cache)).chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'x' }] }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.status, 400);
        assert.equal(error.param, param, error.message);
        return true;
      },
    );
    assert.deepEqual(calls(), { chat: 0, embeddings: 0 });
  }
});

const redisUrl = process.env.TEST_REDIS_URL;

describe('two nodes sharing Redis', { skip: redisUrl ? false : 'needs TEST_REDIS_URL' }, () => {
  let nodeA: TestGateway;
  let nodeB: TestGateway;

  before(async () => {
    nodeA = await startTestGateway({ env: { REDIS_URL: redisUrl! } });
    nodeB = await startTestGateway({ env: { REDIS_URL: redisUrl! } });
  });

  after(async () => {
    await nodeA?.close();
    await nodeB?.close();
  });

  /** Resolves once node B has handled a replicated entry of `ns`: its kv calls listeners in subscription order. */
  async function replicatedTo(node: TestGateway, ns: string): Promise<() => Promise<void>> {
    let seen: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (seen = resolve));
    const unsubscribe = await node.gateway.kv.subscribe('cache.semantic', (message) => {
      if (message.includes(ns)) seen();
    });
    return async () => {
      await arrived;
      await unsubscribe();
    };
  }

  test('an entry stored through node A is a semantic hit on node B', async () => {
    const ns = namespace();
    const arrival = await replicatedTo(nodeB, ns);
    const calls = counter();
    assert.equal((await ask(QUESTION, { namespace: ns, via: nodeA })).status, 'MISS');
    await arrival();
    const onB = await ask(PARAPHRASE, { namespace: ns, via: nodeB });
    assert.equal(onB.status, 'SEMANTIC HIT');
    assert.equal(onB.content, `You asked: ${QUESTION}`);
    assert.deepEqual(calls(), { chat: 1, embeddings: 2 });
    const onA = await ask(PARAPHRASE, { namespace: ns, via: nodeA });
    assert.equal(onA.status, 'SEMANTIC HIT', 'the storing node holds the entry too');
  });
});
