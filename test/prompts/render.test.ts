/**
 * The prompt renderer (src/domain/prompts/render.ts, template.ts) over fixture pairs: `<case>.input.json` (template,
 * is_raw_template, variables, partials) -> `<case>.output.json` (the rendered messages, or the error's status,
 * param and code). Plus what fixtures cannot say: the required variables' order, and a deep nesting refused.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { GatewayError } from '../../src/core/errors.ts';
import { MAX_SECTION_DEPTH, renderPrompt, requiredVariables } from '../../src/domain/prompts/render.ts';
import { parseTemplate } from '../../src/domain/prompts/template.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

interface Input {
  template: string;
  is_raw_template?: boolean;
  variables: Record<string, unknown>;
  partials?: Record<string, string>;
}

function run(input: Input) {
  const template = parseTemplate(input.template, input.is_raw_template ?? false);
  return renderPrompt(template, input.variables, new Map(Object.entries(input.partials ?? {})));
}

describe('prompt rendering fixtures', () => {
  const cases = readdirSync(FIXTURES).filter((name) => name.endsWith('.input.json')).map((name) => name.slice(0, -'.input.json'.length));
  assert.ok(cases.length >= 15);
  for (const name of cases) {
    test(name, () => {
      const input = JSON.parse(readFileSync(join(FIXTURES, `${name}.input.json`), 'utf8')) as Input;
      const expected = JSON.parse(readFileSync(join(FIXTURES, `${name}.output.json`), 'utf8')) as { messages?: unknown; error?: { status: number; param: string; code: string } };
      if (expected.error) {
        assert.throws(() => run(input), (error: unknown) => {
          assert.ok(error instanceof GatewayError, String(error));
          assert.deepEqual({ status: error.status, param: error.param, code: error.code }, expected.error);
          return true;
        });
      } else {
        assert.deepEqual(run(input), expected.messages);
      }
    });
  }
});

test('required variables: outside sections, in order of first use, through partials', () => {
  const template = parseTemplate(JSON.stringify([{ role: 'user', content: '{{b}} {{a.x}} {{#s}}{{c}}{{/s}}{{^t}}{{d}}{{/t}} {{b}} {{> p}}' }]), false);
  assert.deepEqual(requiredVariables(template, new Map([['p', '{{e}}{{#f}}{{g}}{{/f}}']])), ['b', 'a.x', 'e']);
});

test('sections nested deeper than the bound are a 400, not a stack overflow', () => {
  const depth = MAX_SECTION_DEPTH + 1;
  const source = `${'{{#a}}'.repeat(depth)}x${'{{/a}}'.repeat(depth)}`;
  assert.throws(() => run({ template: source, variables: {} }), (error: unknown) => error instanceof GatewayError && error.status === 400 && error.code === 'invalid_prompt_template');
  const fine = `${'{{#a}}'.repeat(MAX_SECTION_DEPTH)}x${'{{/a}}'.repeat(MAX_SECTION_DEPTH)}`;
  assert.deepEqual(run({ template: fine, variables: { a: true } }), [{ role: 'user', content: 'x' }]);
});
