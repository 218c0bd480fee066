import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { prepareChecks, runChecks } from '../../src/guardrails/run.ts';
import type { CheckConfig } from '../../src/guardrails/types.ts';
import type { HostResolver } from '../../src/guardrails/checks/urls.ts';
import { makeContext, makeRegistry, rejects400 } from './helpers.ts';

const registry = makeRegistry();

describe('runChecks', () => {
  it('returns one verdict per enabled check in order, stamped with the configured id; passed only if all pass', async () => {
    const checks: CheckConfig[] = [
      { id: 'default.wordCount', parameters: { maxWords: 10 } },
      { id: 'default.alllowercase', parameters: {} },
      { id: 'default.contains', parameters: { words: ['forbidden'], operator: 'none' }, is_enabled: false },
      { id: 'default.endsWith', parameters: { suffix: '!' }, is_enabled: true },
    ];
    const passing = await runChecks(checks, makeContext({ text: 'hello forbidden world!' }), { registry });
    assert.equal(passing.passed, true);
    assert.deepEqual(passing.verdicts.map((v) => [v.id, v.verdict]), [
      ['default.wordCount', true],
      ['default.alllowercase', true],
      ['default.endsWith', true],
    ]);
    assert.equal(passing.redactedText, undefined);
    const failing = await runChecks(checks, makeContext({ text: 'Hello world!' }), { registry });
    assert.equal(failing.passed, false);
    assert.deepEqual(failing.verdicts.map((v) => v.verdict), [true, false, true]);
  });

  it('passes with no enabled checks', async () => {
    const result = await runChecks([{ id: 'default.wordCount', is_enabled: false }], makeContext(), { registry });
    assert.deepEqual(result, { passed: true, verdicts: [] });
  });

  it('measures each check with the injected clock', async () => {
    let tick = 0;
    const result = await runChecks([{ id: 'default.wordCount' }], makeContext({ text: 'a' }), { registry, now: () => (tick += 5) });
    assert.equal(result.verdicts[0]!.durationMs, 5);
  });

  it('runs checks concurrently', async () => {
    const slow: HostResolver = () => new Promise((resolve) => setTimeout(resolve, 150));
    const local = makeRegistry({ hostResolver: slow });
    const check = { id: 'default.validUrls', parameters: { onlyDNS: true } };
    const started = performance.now();
    const result = await runChecks([check, { ...check }, { ...check }], makeContext({ text: 'https://example.com' }), { registry: local });
    const elapsed = performance.now() - started;
    assert.equal(result.passed, true);
    assert.ok(elapsed < 400, `three 150 ms checks took ${elapsed} ms`);
    for (const verdict of result.verdicts) assert.ok((verdict.durationMs ?? 0) >= 140);
  });

  it('a check that throws while running fails closed without hiding the others', async () => {
    const broken: HostResolver = () => {
      throw new Error('resolver exploded');
    };
    const local = makeRegistry({ hostResolver: broken });
    const result = await runChecks(
      [{ id: 'default.validUrls', parameters: { onlyDNS: true } }, { id: 'default.wordCount' }],
      makeContext({ text: 'https://example.com' }),
      { registry: local },
    );
    assert.equal(result.passed, false);
    assert.deepEqual(result.verdicts.map((v) => v.verdict), [false, true]);
    assert.equal(result.verdicts[0]!.explanation, 'The check could not run: resolver exploded');
  });

  it('names the offending entry of a malformed check list', async () => {
    const context = makeContext();
    const run = (checks: unknown) => runChecks(checks as CheckConfig[], context, { registry });
    await rejects400(run({ id: 'default.wordCount' }), 'checks');
    await rejects400(run([{ id: 'default.wordCount' }, 'default.wordCount']), 'checks[1]');
    await rejects400(run([{ id: 'default.wordCount' }, { id: 'patronus.toxicity' }]), 'checks[1].id');
    await rejects400(run([{ id: 'default.nope' }]), 'checks[0].id');
    await rejects400(run([{ parameters: {} }]), 'checks[0].id');
    await rejects400(run([{ id: 'default.wordCount', is_enabled: 'no' }]), 'checks[0].is_enabled');
    await rejects400(run([{ id: 'default.wordCount' }, { id: 'default.wordCount', parameters: { minWords: 'x' } }]), 'checks[1].parameters.minWords');
    // disabled checks are validated too
    await rejects400(run([{ id: 'default.regexMatch', parameters: { rule: '(' }, is_enabled: false }]), 'checks[0].parameters.rule');
  });

  it('validates and binds a configured check once, however often it runs', () => {
    const checks: CheckConfig[] = [{ id: 'default.regexMatch', parameters: { rule: 'a+' } }];
    const first = prepareChecks(checks, registry);
    const second = prepareChecks(checks, registry);
    assert.equal(first[0]!.check, second[0]!.check);
    assert.notEqual(prepareChecks([{ ...checks[0]! }], registry)[0]!.check, first[0]!.check);
  });

  it('lists the supported ids', () => {
    assert.deepEqual(registry.ids(), [
      'default.alllowercase', 'default.allowedRequestTypes', 'default.alluppercase', 'default.characterCount',
      'default.contains', 'default.endsWith', 'default.isAllLowerCase', 'default.jsonKeys', 'default.jsonSchema',
      'default.modelWhitelist', 'default.pii', 'default.regexMatch', 'default.requiredMetadataKeys',
      'default.sentenceCount', 'default.validUrls', 'default.webhook', 'default.wordCount', 'gateway.pii',
    ]);
  });
});

test('a redaction replaces the text parts of the last user turn and keeps its images and tool results', async () => {
  const { withInputText } = await import('../../src/guardrails/hooks.ts');
  const body = {
    messages: [
      { role: 'user', content: 'first turn' },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: '42' },
          { type: 'text', text: 'my card is 4111 1111 1111 1111' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
          { type: 'text', text: 'second text part' },
        ],
      },
    ],
  };
  const redacted = withInputText(body, 'my card is [REDACTED]') as { messages: Array<{ content: unknown }> };
  assert.equal(redacted.messages[0]!.content, 'first turn');
  assert.deepEqual(redacted.messages[1]!.content, [
    { type: 'tool_result', tool_use_id: 't1', content: '42' },
    { type: 'text', text: 'my card is [REDACTED]' },
    { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
  ]);
  assert.deepEqual(withInputText({ messages: [{ role: 'user', content: 'plain' }] }, 'x'), { messages: [{ role: 'user', content: 'x' }] });
});

test('Responses API bodies: the last user input item is checked and redacted, a Response\'s message text is judged', async () => {
  const { inputText, outputText, withInputText } = await import('../../src/guardrails/hooks.ts');
  const body = {
    model: 'm',
    input: [
      { role: 'user', content: 'earlier' },
      { type: 'function_call_output', call_id: 'c1', output: '42' },
      { role: 'user', content: [{ type: 'input_text', text: 'call me at 555-0100' }, { type: 'input_image', image_url: 'data:,' }] },
    ],
  };
  assert.equal(inputText(body), 'call me at 555-0100');
  const redacted = withInputText(body, 'call me at [PHONE]') as { input: Array<{ content: unknown }> };
  assert.deepEqual(redacted.input[2]!.content, [{ type: 'input_text', text: 'call me at [PHONE]' }, { type: 'input_image', image_url: 'data:,' }]);
  assert.deepEqual(redacted.input[1], body.input[1], 'the tool output is untouched');
  assert.equal(inputText({ input: 'plain prompt' }), 'plain prompt');
  assert.equal(outputText({ object: 'response', output: [{ type: 'reasoning', summary: [] }, { type: 'message', content: [{ type: 'output_text', text: 'the answer' }] }] }), 'the answer');
});
