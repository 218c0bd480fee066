import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { renderProvidersMarkdown } from '../src/providers/capabilities-table.ts';
import { createProviderRegistry } from '../src/providers/registry.ts';

test('docs/providers.md is the table generated from the adapters (run scripts/providers-doc.ts to refresh)', () => {
  const onDisk = readFileSync(new URL('../docs/providers.md', import.meta.url), 'utf8');
  assert.equal(onDisk, renderProvidersMarkdown(createProviderRegistry()));
});

test('the registry holds the OpenAI-compatible family the gateway promises', () => {
  const names = [...createProviderRegistry().keys()];
  for (const name of ['openai', 'groq', 'together-ai', 'fireworks-ai', 'deepseek', 'mistral-ai', 'openrouter', 'perplexity-ai', 'x-ai', 'deepinfra', 'cerebras', 'ollama', 'lm-studio', 'vllm', 'jina']) {
    assert.ok(names.includes(name), `${name} is registered`);
  }
});
