/**
 * Fixture pairs: each fixture holds a stored answer and the chunks that stream it. Replaying the answer must give
 * exactly those chunks (then `[DONE]`), and assembling the chunks must give back exactly the answer. The upstream
 * fixture is one direction only: a stream as OpenAI sends it (split content, interleaved tool call fragments).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { assembleFromStream } from '../../src/cache/assemble.ts';
import { DONE_EVENT, parseCacheableAnswer, replayAsStream, type CacheableAnswer } from '../../src/cache/replay.ts';

interface Fixture {
  description: string;
  answer: CacheableAnswer;
  events: unknown[];
}

function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as Fixture;
}

/** parses `data: {...}\n\n` frames, checking each is a well-formed SSE event */
function parseFrames(frames: string[]): unknown[] {
  return frames.map((frame) => {
    assert.match(frame, /^data: .*\n\n$/s);
    return JSON.parse(frame.slice(6));
  });
}

const pairs = ['chat-text', 'chat-parallel-tools', 'chat-thinking', 'text-completion'];

describe('replayAsStream', () => {
  for (const name of pairs) {
    test(`${name}: the stored answer replays as the fixture's chunks, then [DONE]`, () => {
      const { answer, events } = fixture(name);
      const frames = replayAsStream(answer);
      assert.equal(frames.at(-1), DONE_EVENT);
      assert.deepEqual(parseFrames(frames.slice(0, -1)), events);
    });
  }

  test('logprobs ride on the content chunk and assemble back', () => {
    const { answer } = fixture('chat-text');
    const logprobs = { content: [{ token: 'Hello', logprob: -0.1, bytes: [72], top_logprobs: [] }] };
    const withLogprobs = structuredClone(answer) as CacheableAnswer & { choices: Array<{ logprobs: unknown }> };
    const [first] = withLogprobs.choices;
    assert.ok(first);
    first.logprobs = logprobs;
    assert.deepEqual(assembleFromStream(replayAsStream(withLogprobs)), withLogprobs);
  });

  test('parseCacheableAnswer reads stored bodies of either kind and nothing else', () => {
    for (const name of pairs) assert.deepEqual(parseCacheableAnswer(JSON.stringify(fixture(name).answer)), fixture(name).answer);
    assert.equal(parseCacheableAnswer('{"object":"list","data":[]}'), undefined);
    assert.equal(parseCacheableAnswer('{"object":"chat.completion"}'), undefined);
    assert.equal(parseCacheableAnswer('not json'), undefined);
  });

  test('the usage chunk is left out when the client did not ask for it', () => {
    const { answer, events } = fixture('chat-text');
    const frames = replayAsStream(answer, { includeUsage: false });
    assert.deepEqual(parseFrames(frames.slice(0, -1)), events.slice(0, -1));
  });

  test('tool call chunks carry their index, in order', () => {
    const frames = parseFrames(replayAsStream(fixture('chat-parallel-tools').answer).slice(0, -1)) as Array<{
      choices: Array<{ delta: { tool_calls?: Array<{ index: number; id: string }> } }>;
    }>;
    const calls = frames.flatMap((frame) => frame.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    assert.deepEqual(calls.map((call) => [call.index, call.id]), [[0, 'call_a'], [1, 'call_b']]);
  });
});

describe('assembleFromStream', () => {
  for (const name of pairs) {
    test(`${name}: the fixture's chunks assemble into the stored answer`, () => {
      const { answer, events } = fixture(name);
      assert.deepEqual(assembleFromStream(events), answer);
    });
    test(`${name}: SSE frames (with [DONE]) assemble the same as parsed chunks`, () => {
      const { answer } = fixture(name);
      assert.deepEqual(assembleFromStream(replayAsStream(answer)), answer);
    });
  }

  test('an OpenAI stream: content pieces joined, interleaved parallel tool call arguments assembled by index', () => {
    const { answer, events } = fixture('upstream-openai-stream');
    assert.deepEqual(assembleFromStream(events), answer);
  });

  test('bare data payloads (as the SSE framer yields them) are accepted', () => {
    const { answer, events } = fixture('upstream-openai-stream');
    assert.deepEqual(assembleFromStream([...events.map((event) => JSON.stringify(event)), '[DONE]']), answer);
  });

  test('a stream with an error event is not assembled (errors are never cached)', () => {
    const { events } = fixture('chat-text');
    const broken = [events[0], events[1], { error: { message: 'upstream broke', type: 'server_error' } }];
    assert.equal(assembleFromStream(broken), undefined);
  });

  test('a stream cut before its finish reason is not assembled', () => {
    const { events } = fixture('upstream-openai-stream');
    assert.equal(assembleFromStream(events.slice(0, 6)), undefined);
  });

  test('unreadable JSON, an empty stream, or mixed object kinds are not assembled', () => {
    const { events } = fixture('chat-text');
    assert.equal(assembleFromStream(['data: {"id":']), undefined);
    assert.equal(assembleFromStream([DONE_EVENT]), undefined);
    assert.equal(assembleFromStream([...events.slice(0, 2), ...fixture('text-completion').events]), undefined);
  });
});
