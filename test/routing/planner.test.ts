/** The planner: every mode, nesting, fallback order and triggers, weighted draws, conditional default and errors. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../src/core/errors.ts';
import { nextAttempt, plan } from '../../src/routing/planner.ts';
import { config, leaf, mulberry32, names, alwaysZero, request, walk } from './plan-helpers.ts';

test('a config without targets is one attempt at the root', () => {
  const planned = plan(config({ provider: 'anthropic', api_key: 'k', request_timeout: 900 }), request, alwaysZero);
  assert.equal(planned.attempts.length, 1);
  const [only] = planned.attempts;
  assert.equal(only?.path, 'config');
  assert.equal(only?.index, '');
  assert.deepEqual(only?.fallbacks, []);
  assert.equal(only?.target.provider, 'anthropic');
  assert.equal(only?.target.requestTimeoutMs, 900);
  assert.equal(nextAttempt(planned, 0, 500), undefined);
});

test('a guardrails-only root plans one attempt without a provider (the headers choose it)', () => {
  const planned = plan(config({ input_guardrails: ['pg-1'] }), request, alwaysZero);
  assert.equal(planned.attempts[0]?.target.provider, undefined);
  assert.deepEqual(planned.attempts[0]?.target.inputGuardrails, ['pg-1']);
});

test('single uses the first target only', () => {
  const planned = plan(config({ strategy: { mode: 'single' }, targets: [leaf('a'), leaf('b')] }), request, alwaysZero);
  assert.deepEqual(names(planned), ['a']);
  assert.equal(planned.attempts[0]?.path, 'config.targets[0]');
  assert.equal(planned.attempts[0]?.index, '0');
});

test('fallback tries targets in order on any non-2xx or network error by default', () => {
  const planned = plan(config({ strategy: { mode: 'fallback' }, targets: [leaf('a'), leaf('b'), leaf('c')] }), request, alwaysZero);
  assert.deepEqual(names(planned), ['a', 'b', 'c']);
  assert.deepEqual(walk(planned, 500), ['a', 'b', 'c']);
  assert.deepEqual(walk(planned, 'network'), ['a', 'b', 'c']);
  assert.deepEqual(walk(planned, 404), ['a', 'b', 'c']);
  assert.deepEqual(walk(planned, 200), ['a']);
  assert.deepEqual(walk(planned, 204), ['a']);
  assert.equal(nextAttempt(planned, 1, 503), 2);
  assert.equal(nextAttempt(planned, 2, 503), undefined);
  assert.equal(nextAttempt(planned, 99, 503), undefined);
  assert.deepEqual(
    planned.attempts.map((attempt) => attempt.path),
    ['config.targets[0]', 'config.targets[1]', 'config.targets[2]'],
  );
});

test('fallback with on_status_codes moves on only for those statuses (and network errors)', () => {
  const planned = plan(
    config({ strategy: { mode: 'fallback', on_status_codes: [429, 503] }, targets: [leaf('a'), leaf('b')] }),
    request,
    alwaysZero,
  );
  assert.deepEqual(walk(planned, 429), ['a', 'b']);
  assert.deepEqual(walk(planned, 503), ['a', 'b']);
  assert.deepEqual(walk(planned, 500), ['a']);
  assert.deepEqual(walk(planned, 'network'), ['a', 'b']);
  assert.deepEqual(planned.attempts[0]?.fallbacks, [{ path: 'config', onStatusCodes: [429, 503], next: 1 }]);
});

test('nested fallbacks: an inner fallback that is not triggered or is exhausted hands the failure outwards', () => {
  const planned = plan(
    config({
      strategy: { mode: 'fallback', on_status_codes: [500, 429] },
      targets: [{ strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [leaf('a'), leaf('b')] }, leaf('c')],
    }),
    request,
    alwaysZero,
  );
  assert.deepEqual(names(planned), ['a', 'b', 'c']);
  assert.deepEqual(walk(planned, 429), ['a', 'b', 'c'], 'inner moves on, then the exhausted inner hands over');
  assert.deepEqual(walk(planned, 500), ['a', 'c'], 'inner ignores 500, outer moves on');
  assert.deepEqual(walk(planned, 400), ['a'], 'neither fallback is triggered');
  assert.deepEqual(
    planned.attempts[0]?.fallbacks.map((link) => [link.path, link.next]),
    [['config.targets[0]', 1], ['config', 2]],
  );
});

test('loadbalance draws ONE target; the others are not tried', () => {
  const planned = plan(config({ strategy: { mode: 'loadbalance' }, targets: [leaf('a'), leaf('b')] }), request, () => 0.75);
  assert.deepEqual(names(planned), ['b']);
  assert.equal(planned.attempts[0]?.path, 'config.targets[1]');
  assert.equal(nextAttempt(planned, 0, 500), undefined);
});

test('loadbalance weights over 10,000 seeded draws: shares within 2%, weight 0 alwaysZero, missing weight 1', () => {
  const weighted = config({
    strategy: { mode: 'loadbalance' },
    targets: [leaf('a', { weight: 0.5 }), leaf('zero', { weight: 0 }), leaf('b'), leaf('c', { weight: 2.5 })],
  });
  const random = mulberry32(42);
  const counts = new Map<string, number>();
  const draws = 10_000;
  for (let i = 0; i < draws; i++) {
    const name = plan(weighted, request, random).attempts[0]?.name ?? '?';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  assert.equal(counts.get('zero'), undefined, 'weight 0 is never chosen');
  const expected = { a: 0.5 / 4, b: 1 / 4, c: 2.5 / 4 };
  for (const [name, share] of Object.entries(expected)) {
    const actual = (counts.get(name) ?? 0) / draws;
    assert.ok(Math.abs(actual - share) < 0.02, `${name}: ${actual} vs ${share}`);
  }
});

test('loadbalance edge draws: zero-weight targets are skipped at both ends, random() = 1 is safe', () => {
  const edges = config({
    strategy: { mode: 'loadbalance' },
    targets: [leaf('z1', { weight: 0 }), leaf('a'), leaf('b'), leaf('z2', { weight: 0 })],
  });
  assert.deepEqual(names(plan(edges, request, () => 0)), ['a']);
  assert.deepEqual(names(plan(edges, request, () => 0.999999)), ['b']);
  assert.deepEqual(names(plan(edges, request, () => 1)), ['b']);
});

test('a loadbalance inside a fallback: a failed draw moves the fallback on', () => {
  const planned = plan(
    config({
      strategy: { mode: 'fallback' },
      targets: [{ strategy: { mode: 'loadbalance' }, targets: [leaf('a'), leaf('b')] }, leaf('c')],
    }),
    request,
    () => 0.1,
  );
  assert.deepEqual(names(planned), ['a', 'c']);
  assert.deepEqual(walk(planned, 502), ['a', 'c']);
});

const conditional = (extra: object = {}) => ({
  strategy: {
    mode: 'conditional',
    conditions: [
      { query: { 'metadata.user_plan': 'free' }, then: 'small' },
      { query: { 'params.model': { $regex: '^gpt-4' } }, then: 'large' },
      { query: { 'metadata.user_plan': 'pro' }, then: 'small' },
    ],
    ...extra,
  },
  targets: [leaf('small'), leaf('large'), leaf('other')],
});

test('conditional: the first matching condition wins', () => {
  assert.deepEqual(names(plan(config(conditional()), request, alwaysZero)), ['large']);
  const free = { metadata: { user_plan: 'free' }, params: { model: 'gpt-4o' } };
  assert.deepEqual(names(plan(config(conditional()), free, alwaysZero)), ['small']);
  const pro = { metadata: { user_plan: 'pro' }, params: { model: 'claude' } };
  assert.deepEqual(names(plan(config(conditional()), pro, alwaysZero)), ['small']);
});

test('conditional: no match uses the default, and without a default is a 400 naming the strategy', () => {
  const nobody = { metadata: {}, params: { model: 'mistral' } };
  const planned = plan(config(conditional({ default: 'other' })), nobody, alwaysZero);
  assert.deepEqual(names(planned), ['other']);
  assert.equal(planned.attempts[0]?.path, 'config.targets[2]');
  assert.throws(
    () => plan(config(conditional()), nobody, alwaysZero),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.status === 400 &&
      error.code === 'no_condition_matched' &&
      error.param === 'config.strategy' &&
      /no condition/i.test(error.message) &&
      /no default/.test(error.message),
  );
});

test('nesting: a loadbalance of fallbacks of conditionals', () => {
  const cond = (prefix: string) => ({
    strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.user_plan': 'pro' }, then: `${prefix}-pro` }], default: `${prefix}-std` },
    targets: [leaf(`${prefix}-std`), leaf(`${prefix}-pro`)],
  });
  const nested = config({
    strategy: { mode: 'loadbalance' },
    targets: [
      { weight: 0, strategy: { mode: 'fallback' }, targets: [cond('x'), leaf('x-last')] },
      { weight: 1, strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [cond('y'), cond('z'), leaf('y-last')] },
    ],
  });
  const planned = plan(nested, request, mulberry32(7));
  assert.deepEqual(names(planned), ['y-pro', 'z-pro', 'y-last']);
  assert.deepEqual(
    planned.attempts.map((attempt) => [attempt.path, attempt.index]),
    [
      ['config.targets[1].targets[0].targets[1]', '1.0.1'],
      ['config.targets[1].targets[1].targets[1]', '1.1.1'],
      ['config.targets[1].targets[2]', '1.2'],
    ],
  );
  assert.deepEqual(walk(planned, 429), ['y-pro', 'z-pro', 'y-last']);
  assert.deepEqual(walk(planned, 500), ['y-pro']);
  const standard = plan(nested, { metadata: {}, params: {} }, mulberry32(7));
  assert.deepEqual(names(standard), ['y-std', 'z-std', 'y-last']);
});
