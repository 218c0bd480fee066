/**
 * Local OpenAI-compatible servers (Ollama, LM Studio, vLLM) serve the OpenAI API under /v1. Their custom host may be
 * the bare origin, the form the reference API documents for Ollama (http://localhost:11434: the gateway adds /v1),
 * or a base that names a version (http://localhost:11434/v1: kept). The hosted vendors take their custom host as
 * given, version included, like their default base URL.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inferenceCall } from '../../../test/helpers/provider-cases.ts';
import type { CallParts } from '../../core/inference-call.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { createProviderRegistry } from '../registry.ts';

const registry = createProviderRegistry();

function call(route: RouteKind, extra: Partial<CallParts> = {}): InferenceCall {
  return inferenceCall(route, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, extra);
}

function url(provider: string, baseUrl: string, input: InferenceCall): string {
  const target: ProviderTarget = { provider, baseUrl, customHost: true, apiKey: undefined, cloud: {} };
  return registry.get(provider)!.buildRequest(input, target).url;
}

describe('local servers: custom host forms', () => {
  for (const provider of ['ollama', 'lm-studio', 'vllm']) {
    test(`${provider}: the origin and a prefix get /v1, a versioned base is kept`, () => {
      assert.equal(url(provider, 'http://127.0.0.1:11434', call('chat')), 'http://127.0.0.1:11434/v1/chat/completions');
      assert.equal(url(provider, 'https://proxy.example/llm', call('embeddings')), 'https://proxy.example/llm/v1/embeddings');
      assert.equal(url(provider, 'http://127.0.0.1:11434/v1', call('chat')), 'http://127.0.0.1:11434/v1/chat/completions');
      assert.equal(url(provider, 'http://127.0.0.1:11434', call('models', { method: 'GET', query: 'a=1' })), 'http://127.0.0.1:11434/v1/models?a=1');
      assert.equal(url(provider, 'http://127.0.0.1:11434', call('passthrough', { path: '/files/f-1', query: 'b=2' })), 'http://127.0.0.1:11434/v1/files/f-1?b=2');
    });
  }

  test('vllm rerank goes under /v1 too', () => {
    assert.equal(url('vllm', 'http://127.0.0.1:8000', call('rerank')), 'http://127.0.0.1:8000/v1/rerank');
  });

  test('hosted vendors take the custom host as given (their reference form names the version)', () => {
    assert.equal(url('openai', 'https://proxy.example/openai', call('chat')), 'https://proxy.example/openai/chat/completions');
    assert.equal(url('perplexity-ai', 'https://api.perplexity.ai', call('chat')), 'https://api.perplexity.ai/chat/completions');
  });
});
