/**
 * Fixture pairs written from Anthropic's documentation (__fixtures__/*.json): each pair is an input and the exact
 * expected output of one pure mapper (request body and warnings, chat or text answer, stream chunks, error body,
 * model list).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import type { ChatRequest } from '../../core/openai-types.ts';
import {
  createAnthropicStreamDecoder,
  createAnthropicTextStreamDecoder,
  fromAnthropicMessage,
  fromAnthropicMessageAsText,
  fromAnthropicModels,
  parseAnthropicError,
  toAnthropicCompletionBody,
  toAnthropicMessagesBody,
} from './index.ts';

const CREATED = 1_700_000_000;
const FIXTURES = new URL('./__fixtures__/', import.meta.url);

interface Pair {
  kind: 'request' | 'response' | 'stream' | 'error' | 'models';
  route?: 'chat' | 'completions';
  description?: string;
  strictReferenceCompliance?: boolean;
  includeUsage?: boolean;
  status?: number;
  input: unknown;
  expected: unknown;
  expectedError?: { status: number; body: unknown };
}

function runStream(pair: Pair): void {
  const options = { strictReferenceCompliance: pair.strictReferenceCompliance ?? true, includeUsage: pair.includeUsage ?? false, provider: 'anthropic', created: CREATED };
  const decoder = pair.route === 'completions' ? createAnthropicTextStreamDecoder(options) : createAnthropicStreamDecoder(options);
  const chunks: unknown[] = [];
  let failure: unknown;
  try {
    for (const event of pair.input as Array<{ event: string; data: unknown }>) {
      chunks.push(...decoder.push({ event: event.event, data: JSON.stringify(event.data) }));
    }
    chunks.push(...decoder.end());
  } catch (error) {
    failure = error;
  }
  assert.deepEqual(chunks, pair.expected);
  if (pair.expectedError) {
    assert.ok(failure instanceof GatewayError, 'the decoder throws a GatewayError');
    assert.deepEqual({ status: failure.status, body: failure.toBody() }, pair.expectedError);
  } else {
    assert.equal(failure, undefined, `the stream decodes without error: ${String(failure)}`);
  }
}

function run(pair: Pair): void {
  const strictReferenceCompliance = pair.strictReferenceCompliance ?? true;
  const responseOptions = { strictReferenceCompliance, provider: 'anthropic', created: CREATED };
  switch (pair.kind) {
    case 'request': {
      const built =
        pair.route === 'completions'
          ? toAnthropicCompletionBody(pair.input as Record<string, unknown>, { strictReferenceCompliance })
          : toAnthropicMessagesBody(pair.input as ChatRequest, { strictReferenceCompliance });
      assert.deepEqual(built, pair.expected);
      return;
    }
    case 'response': {
      const converted = pair.route === 'completions' ? fromAnthropicMessageAsText(pair.input, responseOptions) : fromAnthropicMessage(pair.input, responseOptions);
      assert.deepEqual(converted, pair.expected);
      return;
    }
    case 'stream':
      return runStream(pair);
    case 'error':
      assert.deepEqual(parseAnthropicError(pair.status ?? 400, pair.input) ?? null, pair.expected);
      return;
    case 'models':
      assert.deepEqual(fromAnthropicModels(pair.input), pair.expected);
  }
}

const files = readdirSync(FIXTURES).filter((name) => name.endsWith('.json')).sort();

describe('Anthropic fixture pairs', () => {
  test('every fixture required by the brief is present', () => {
    for (const name of ['simple-chat', 'system-developer', 'tools-parallel', 'images', 'thinking', 'cache-control', 'finish-reasons', 'stream-text', 'stream-tools', 'stream-thinking', 'stream-error', 'error-body', 'completions', 'response-format', 'models']) {
      assert.ok(files.includes(`${name}.json`), `${name}.json`);
    }
  });
  for (const file of files) {
    const fixture = JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as { description: string; pairs: Pair[] };
    describe(`${file}: ${fixture.description}`, () => {
      fixture.pairs.forEach((pair, index) => {
        const mode = pair.strictReferenceCompliance === false ? ', non-strict' : '';
        test(`#${index} ${pair.route ?? 'chat'} ${pair.kind}${mode}${pair.description ? `: ${pair.description}` : ''}`, () => run(pair));
      });
    });
  }
});
