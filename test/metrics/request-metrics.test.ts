/**
 * The request metrics observer on hand-built log rows: what each metric counts, which labels it carries, and that
 * the number of series stays bounded (and flat) however many distinct keys, users, models and metadata values
 * the requests carry. Also the gauges read at scrape time (request-log queue, upstream pools).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Registry } from 'prom-client';
import { createLabelCap, statusClass } from '../../src/metrics/label-cap.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import type { UpstreamPoolStats } from '../../src/upstream/client.ts';
import { finished } from './finished-rows.ts';

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

async function samples(registry: Registry, name: string): Promise<Sample[]> {
  const metric = registry.getSingleMetric(name);
  assert.ok(metric, `${name} is registered`);
  return (await metric.get()).values as Sample[];
}

/** the value of the one sample whose labels include `labels` (and, for histograms, of the given series name) */
async function valueOf(registry: Registry, name: string, labels: Record<string, string>, series = name): Promise<number | undefined> {
  const matching = (await samples(registry, name)).filter(
    (sample) => (sample.metricName ?? name) === series && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  assert.ok(matching.length <= 1, `one sample of ${series} with ${JSON.stringify(labels)}, got ${matching.length}`);
  return matching[0]?.value;
}

async function seriesCount(registry: Registry): Promise<number> {
  return (await registry.getMetricsAsJSON()).reduce((total, metric) => total + metric.values.length, 0);
}

describe('label bounds', () => {
  test('the first N distinct values are kept, later ones are "other", unknown ones "none", long ones cut', () => {
    const cap = createLabelCap(2);
    assert.equal(cap.value('a'), 'a');
    assert.equal(cap.value('b'), 'b');
    assert.equal(cap.value('c'), 'other');
    assert.equal(cap.value('a'), 'a');
    assert.equal(cap.value(null), 'none');
    assert.equal(cap.value(''), 'none');
    assert.equal(cap.size, 2);
    assert.equal(createLabelCap(5).value('x'.repeat(1000)).length, 128);
  });

  test('statuses become five classes; anything else is "none"', () => {
    assert.deepEqual([200, 201, 302, 404, 429, 446, 499, 500, 503].map(statusClass), ['2xx', '2xx', '3xx', '4xx', '4xx', '4xx', '4xx', '5xx', '5xx']);
    assert.deepEqual([null, undefined, 0, 99, 600, 200.5].map(statusClass), ['none', 'none', 'none', 'none', 'none', 'none']);
  });
});

describe('request metrics from a finished row', () => {
  test('count, latency, tokens by kind, cost and cache outcome, by route, provider, model and status class', async () => {
    const metrics = createMetrics();
    const { registry } = metrics;
    metrics.request.observe(finished({ responseTimeMs: 1500, cachedTokens: 3, reasoningTokens: 2, cacheWriteTokens: 0 }));
    metrics.request.observe(finished({ responseTimeMs: 500, cost: '0.000200000000', cacheStatus: 'HIT' }));
    metrics.request.observe(finished({ status: 502, isSuccess: false, promptTokens: null, completionTokens: null, cost: null, cacheStatus: 'SEMANTIC HIT' }));
    const target = { route: 'chat', provider: 'fake-provider', model: 'model-a' };

    assert.equal(await valueOf(registry, 'gateway_requests_total', { ...target, status: '2xx' }), 2);
    assert.equal(await valueOf(registry, 'gateway_requests_total', { ...target, status: '5xx' }), 1);
    assert.equal(await valueOf(registry, 'gateway_request_duration_seconds', { ...target, status: '2xx' }, 'gateway_request_duration_seconds_count'), 2);
    assert.equal(await valueOf(registry, 'gateway_request_duration_seconds', { ...target, status: '2xx' }, 'gateway_request_duration_seconds_sum'), 2);
    const buckets = (await samples(registry, 'gateway_request_duration_seconds')).filter((sample) => sample.metricName === 'gateway_request_duration_seconds_bucket' && sample.labels.status === '2xx');
    assert.equal(buckets.find((sample) => sample.labels.le === 1)?.value, 1, 'the 0.5 s request is under 1 s, the 1.5 s one is not');

    const tokens = { provider: 'fake-provider', model: 'model-a' };
    assert.equal(await valueOf(registry, 'gateway_tokens_total', { ...tokens, kind: 'prompt' }), 22, 'unknown (null) counts add nothing');
    assert.equal(await valueOf(registry, 'gateway_tokens_total', { ...tokens, kind: 'completion' }), 14);
    assert.equal(await valueOf(registry, 'gateway_tokens_total', { ...tokens, kind: 'cached' }), 3);
    assert.equal(await valueOf(registry, 'gateway_tokens_total', { ...tokens, kind: 'reasoning' }), 2);
    assert.equal(await valueOf(registry, 'gateway_tokens_total', { ...tokens, kind: 'cache_write' }), undefined, 'a count of 0 makes no series');
    const cost = await valueOf(registry, 'gateway_cost_usd_total', tokens);
    assert.ok(cost !== undefined && Math.abs(cost - 0.000323) < 1e-12, `cost ${cost}`);

    assert.equal(await valueOf(registry, 'gateway_cache_requests_total', { route: 'chat', cache_status: 'miss' }), 1);
    assert.equal(await valueOf(registry, 'gateway_cache_requests_total', { route: 'chat', cache_status: 'hit' }), 1);
    assert.equal(await valueOf(registry, 'gateway_cache_requests_total', { route: 'chat', cache_status: 'semantic_hit' }), 1);
  });

  test('time to first token: streamed answers with a first-byte time only', async () => {
    const metrics = createMetrics();
    metrics.request.observe(finished({ streamMode: true, firstByteMs: 250 }));
    metrics.request.observe(finished({ streamMode: true, firstByteMs: null }));
    metrics.request.observe(finished({ streamMode: false, firstByteMs: 900 }));
    const labels = { route: 'chat', provider: 'fake-provider', model: 'model-a' };
    assert.equal(await valueOf(metrics.registry, 'gateway_time_to_first_token_seconds', labels, 'gateway_time_to_first_token_seconds_count'), 1);
    assert.equal(await valueOf(metrics.registry, 'gateway_time_to_first_token_seconds', labels, 'gateway_time_to_first_token_seconds_sum'), 0.25);
  });

  test('upstream tries: one count and one duration per attempt, by provider and status class ("none" without an answer)', async () => {
    const metrics = createMetrics();
    metrics.request.observe(finished({
      attempts: [
        { path: '0', provider: 'fake-provider', model: 'model-a', started_ms: 5, duration_ms: 100, status: 503, error: { type: 'upstream_error', message: 'busy' }, retry: 0 },
        { path: '0', provider: 'fake-provider', model: 'model-a', started_ms: 120, duration_ms: 3000, status: null, error: { type: 'timeout', message: 'slow' }, retry: 1 },
        { path: '1', provider: 'other-provider', model: 'model-b', started_ms: 3200, duration_ms: 200, status: 200, error: null, retry: 0 },
        // not a try the log could have written: skipped, not trusted
        { path: '2', provider: 42, started_ms: 'soon' },
      ],
    }));
    const { registry } = metrics;
    assert.equal(await valueOf(registry, 'gateway_upstream_attempts_total', { provider: 'fake-provider', status: '5xx' }), 1);
    assert.equal(await valueOf(registry, 'gateway_upstream_attempts_total', { provider: 'fake-provider', status: 'none' }), 1);
    assert.equal(await valueOf(registry, 'gateway_upstream_attempts_total', { provider: 'other-provider', status: '2xx' }), 1);
    assert.equal((await samples(registry, 'gateway_upstream_attempts_total')).length, 3);
    assert.equal(await valueOf(registry, 'gateway_upstream_attempt_duration_seconds', { provider: 'fake-provider', status: 'none' }, 'gateway_upstream_attempt_duration_seconds_sum'), 3);
  });
});

describe('bounded series: memory stays flat however many keys, users, models and metadata values', () => {
  test('thousands of requests with distinct ids, models and metadata: the series count stops growing at its bound', async () => {
    const maxModels = 20;
    const metrics = createMetrics({ maxModels });
    const routes = ['chat', 'embeddings', 'completions'];
    const providers = ['provider-a', 'provider-b'];
    const statuses = [200, 429, 500];
    const cacheStatuses = ['MISS', 'HIT', 'DISABLED'];
    const request = (index: number) => finished({
      id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      apiKeyId: `10000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      userId: `20000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      workspaceId: `30000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      traceId: `trace-${index}`,
      spanId: `span-${index}`,
      metadata: { _user: `user-${index}`, team: `team-${index}`, [`key-${index}`]: `value-${index}` },
      route: routes[index % routes.length]!,
      provider: providers[index % providers.length]!,
      model: `client-model-${index}`,
      status: statuses[index % statuses.length]!,
      streamMode: index % 2 === 0,
      firstByteMs: index % 1000,
      cacheStatus: cacheStatuses[index % cacheStatuses.length]!,
      reasoningTokens: 1,
      cachedTokens: 1,
      cacheWriteTokens: 1,
      attempts: [{ path: '0', provider: providers[index % providers.length]!, model: `client-model-${index}`, started_ms: 1, duration_ms: 10, status: statuses[index % statuses.length]!, error: null, retry: 0 }],
    }, { traceparent: `00-${index.toString(16).padStart(32, '0')}-00f067aa0ba902b7-01` });

    for (let index = 0; index < 2_000; index += 1) metrics.request.observe(request(index));
    const early = await seriesCount(metrics.registry);
    for (let index = 2_000; index < 20_000; index += 1) metrics.request.observe(request(index));
    const late = await seriesCount(metrics.registry);
    assert.equal(late, early, 'no new series after the caps are reached');

    // the bound, from the label sets: models are capped at maxModels + "other"
    const models = maxModels + 1;
    const histogramSeries = (buckets: number) => buckets + 3; // each bucket, +Inf, _sum and _count
    const targets = routes.length * providers.length * models;
    const bound =
      targets * statuses.length * (1 + histogramSeries(13)) + // requests counter + duration histogram
      targets * histogramSeries(10) + // time to first token
      providers.length * models * (5 + 1) + // tokens by kind + cost
      routes.length * cacheStatuses.length + // cache outcomes
      providers.length * statuses.length * (1 + histogramSeries(13)); // upstream tries
    assert.ok(late <= bound, `${late} series, bound ${bound}`);

    const text = await metrics.registry.metrics();
    for (const leak of ['trace-1999', 'span-5', 'user-7', 'team-8', 'value-9', '10000000-0000-4000-8000', '20000000-0000-4000-8000', 'client-model-19999']) {
      assert.ok(!text.includes(leak), `no label carries ${leak}`);
    }
    const modelLabels = new Set((await samples(metrics.registry, 'gateway_requests_total')).map((sample) => sample.labels.model));
    assert.equal(modelLabels.size, maxModels + 1);
    assert.ok(modelLabels.has('other'));
  });
});

describe('gauges read at scrape time', () => {
  test('the request log queue depth is read from its source at each scrape; nothing before a source is attached', async () => {
    const metrics = createMetrics();
    assert.deepEqual(await samples(metrics.registry, 'gateway_request_log_queue_depth'), [{ value: 0, labels: {} }]);
    let pending = 7;
    metrics.runtime.watch({ requestLogPending: () => pending });
    assert.equal((await samples(metrics.registry, 'gateway_request_log_queue_depth'))[0]?.value, 7);
    pending = 3;
    assert.equal((await samples(metrics.registry, 'gateway_request_log_queue_depth'))[0]?.value, 3);
    // and its bytes
    assert.deepEqual(await samples(metrics.registry, 'gateway_request_log_queue_bytes'), [{ value: 0, labels: {} }]);
    metrics.runtime.watch({ requestLogBytes: () => 4096 });
    assert.equal((await samples(metrics.registry, 'gateway_request_log_queue_bytes'))[0]?.value, 4096);
    assert.equal((await samples(metrics.registry, 'gateway_request_log_queue_depth'))[0]?.value, 3, 'the other source stays');
  });

  test('upstream pools: each state by agent and origin; origins past the cap summed as "other"; closed pools disappear', async () => {
    const metrics = createMetrics({ maxOrigins: 2 });
    const pool = (agent: UpstreamPoolStats['agent'], origin: string, connected: number): UpstreamPoolStats => ({ agent, origin, connected, free: connected - 1, pending: 0, queued: 2, running: 1, size: 3 });
    let pools = [pool('default', 'https://a.example', 4), pool('custom', 'http://b.example:8080', 2), pool('custom', 'http://c.example', 1), pool('custom', 'http://d.example', 5)];
    metrics.runtime.watch({ upstreamPools: () => pools });
    const read = async () => Object.fromEntries((await samples(metrics.registry, 'gateway_upstream_pool_connections')).map((sample) => [`${sample.labels.agent} ${sample.labels.origin} ${sample.labels.state}`, sample.value]));
    const first = await read();
    assert.equal(first['default https://a.example connected'], 4);
    assert.equal(first['default https://a.example free'], 3);
    assert.equal(first['custom http://b.example:8080 queued'], 2);
    assert.equal(first['custom other connected'], 6, 'c and d are past the cap: summed');
    assert.equal(first['custom other size'], 6);
    assert.equal(Object.keys(first).length, 3 * 6);
    pools = [pool('default', 'https://a.example', 1)];
    const second = await read();
    assert.deepEqual(Object.keys(second).sort(), ['connected', 'free', 'pending', 'queued', 'running', 'size'].map((state) => `default https://a.example ${state}`).sort());
  });
});
