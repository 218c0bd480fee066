/**
 * GET /metrics of a real gateway after real requests (the official openai client, a fake OpenAI upstream),
 * parsed with a Prometheus text-format parser: request counts and latency by route, provider, model and status
 * class, tokens and cost (checked against the request log's own rows), cache outcomes, the request log's queue,
 * the upstream pools; and no label carrying a trace id, a user, a key or metadata.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';
import { request } from 'undici';
import { findRequestLogsByTraceId, type RequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { closeAll } from '../helpers/backend-gateway.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
});

after(() => closeAll(() => gateway?.close(), () => upstream?.close()));

const METADATA = { _user: 'user-that-must-not-be-a-label', team: 'metadata-value-not-a-label' };

function client(config?: unknown): OpenAI {
  const routing: Record<string, string> = config === undefined
    ? { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl }
    : { 'x-gateway-config': JSON.stringify(config) };
  return new OpenAI({
    apiKey: 'sk-provider-key-not-a-label',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-metadata': JSON.stringify(METADATA), ...routing },
  });
}

interface Scrape {
  families: ParsedFamily[];
  /** every sample by series name (`x_bucket`, `x_sum`, `x_count` for a histogram), with its labels */
  series: Map<string, ParsedSample[]>;
}

/**
 * The parser reads a labelled histogram as one sample with the buckets of every series merged (it follows
 * prom2json for label-less histograms only): the text is parsed as it is (types and every line checked), then
 * once more with histogram families declared untyped, which keeps each `_bucket`, `_sum` and `_count` line with
 * its labels.
 */
async function scrape(): Promise<Scrape> {
  const response = await request(`${gateway.origin}/metrics`);
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const text = await response.body.text();
  const series = new Map<string, ParsedSample[]>();
  for (const found of parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'))) {
    series.set(found.name, [...(series.get(found.name) ?? []), ...found.metrics]);
  }
  return { families: parsePrometheusTextFormat(text), series };
}

function family(scraped: Scrape, name: string, type: ParsedFamily['type']): ParsedFamily {
  const found = scraped.families.find((candidate) => candidate.name === name);
  assert.ok(found, `${name} is exposed`);
  assert.equal(found.type, type);
  return found;
}

function sampleOf(scraped: Scrape, name: string, labels: Record<string, string>): ParsedSample | undefined {
  const matching = (scraped.series.get(name) ?? []).filter((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));
  assert.ok(matching.length <= 1, `one ${name} sample with ${JSON.stringify(labels)}, got ${matching.length}`);
  return matching[0];
}

function sample(scraped: Scrape, name: string, type: 'COUNTER' | 'GAUGE', labels: Record<string, string>): ParsedSample | undefined {
  family(scraped, name, type);
  return sampleOf(scraped, name, labels);
}

/** one labelled series of a histogram: its count, sum and cumulative buckets */
function histogram(scraped: Scrape, name: string, labels: Record<string, string>) {
  family(scraped, name, 'HISTOGRAM');
  const buckets = (scraped.series.get(`${name}_bucket`) ?? []).filter((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));
  return {
    count: value(sampleOf(scraped, `${name}_count`, labels)),
    sum: value(sampleOf(scraped, `${name}_sum`, labels)),
    buckets: Object.fromEntries(buckets.map((bucket) => [bucket.labels?.le, Number(bucket.value)])),
  };
}

/** every series of a histogram family by name suffix */
const allOf = (scraped: Scrape, name: string) => scraped.series.get(name) ?? [];

const value = (found: ParsedSample | undefined) => (found?.value === undefined ? undefined : Number(found.value));

const traces: string[] = [];
const traceOptions = () => {
  const trace = randomUUID();
  traces.push(trace);
  return { headers: { 'x-gateway-trace-id': trace } };
};

test('after chat answers, a stream, a provider error and a cache hit, the scrape counts each by its labels', async () => {
  const messages = [{ role: 'user' as const, content: 'hello' }];
  for (let index = 0; index < 2; index += 1) await client().chat.completions.create({ model: 'gpt-4o', messages }, traceOptions());
  const stream = await client().chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } }, traceOptions());
  for await (const _chunk of stream) { /* read to the end */ }
  await assert.rejects(client().chat.completions.create({ model: 'error-500', messages }, traceOptions()), { status: 500 });
  const cached = { provider: 'openai', custom_host: upstream.baseUrl, cache: { mode: 'simple', max_age: 60 } };
  for (let index = 0; index < 2; index += 1) await client(cached).chat.completions.create({ model: 'cached-model', messages: [{ role: 'user', content: `cache ${randomUUID()}`.slice(0, 6) }] }, traceOptions());

  // every row queued and written: the queue gauge reads 0, and the rows are there to compare with
  await gateway.gateway.requestLog.flush();
  const rows: RequestLogRow[] = [];
  for (const trace of traces) rows.push(...await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, trace));
  assert.equal(rows.length, traces.length);
  const scraped = await scrape();

  const chat = { route: 'chat', provider: 'openai' };
  assert.equal(value(sample(scraped, 'gateway_requests_total', 'COUNTER', { ...chat, model: 'gpt-4o', status: '2xx' })), 2);
  assert.equal(value(sample(scraped, 'gateway_requests_total', 'COUNTER', { ...chat, model: 'gpt-4o-mini', status: '2xx' })), 1);
  assert.equal(value(sample(scraped, 'gateway_requests_total', 'COUNTER', { ...chat, model: 'error-500', status: '5xx' })), 1);
  assert.equal(value(sample(scraped, 'gateway_requests_total', 'COUNTER', { ...chat, model: 'cached-model', status: '2xx' })), 2);

  const latency = histogram(scraped, 'gateway_request_duration_seconds', { ...chat, model: 'gpt-4o', status: '2xx' });
  assert.equal(latency.count, 2);
  const gpt4o = rows.filter((row) => row.model === 'gpt-4o');
  const seconds = gpt4o.reduce((total, row) => total + row.responseTimeMs, 0) / 1000;
  assert.ok(latency.sum !== undefined && Math.abs(latency.sum - seconds) < 1e-9, `latency sum ${latency.sum} is the rows' ${seconds}`);
  assert.equal(latency.buckets['+Inf'], 2);
  assert.equal(latency.buckets['0.05'], gpt4o.filter((row) => row.responseTimeMs <= 50).length);

  // tokens and cost, by kind, are the rows' own sums (the answers' usage, the catalog's prices)
  for (const model of ['gpt-4o', 'gpt-4o-mini']) {
    const ofModel = rows.filter((row) => row.model === model);
    const prompt = ofModel.reduce((total, row) => total + (row.promptTokens ?? 0), 0);
    const completion = ofModel.reduce((total, row) => total + (row.completionTokens ?? 0), 0);
    assert.ok(prompt > 0 && completion > 0, `the ${model} answers reported usage`);
    assert.equal(value(sample(scraped, 'gateway_tokens_total', 'COUNTER', { provider: 'openai', model, kind: 'prompt' })), prompt);
    assert.equal(value(sample(scraped, 'gateway_tokens_total', 'COUNTER', { provider: 'openai', model, kind: 'completion' })), completion);
    const cost = ofModel.reduce((total, row) => total + Number(row.cost), 0);
    assert.ok(cost > 0, `${model} is priced by the catalog`);
    const counted = value(sample(scraped, 'gateway_cost_usd_total', 'COUNTER', { provider: 'openai', model }));
    assert.ok(counted !== undefined && Math.abs(counted - cost) < 1e-12, `cost ${counted} is the rows' ${cost}`);
  }
  assert.equal(sample(scraped, 'gateway_cost_usd_total', 'COUNTER', { provider: 'openai', model: 'error-500' }), undefined, 'a failed request costs nothing');

  assert.equal(value(sample(scraped, 'gateway_cache_requests_total', 'COUNTER', { route: 'chat', cache_status: 'miss' })), 1);
  assert.equal(value(sample(scraped, 'gateway_cache_requests_total', 'COUNTER', { route: 'chat', cache_status: 'hit' })), 1);
  assert.equal(value(sample(scraped, 'gateway_cache_requests_total', 'COUNTER', { route: 'chat', cache_status: 'disabled' })), 4);

  // the request log: its queue read at scrape time (empty after the flush), nothing dropped
  assert.equal(value(sample(scraped, 'gateway_request_log_queue_depth', 'GAUGE', {})), 0);
  assert.deepEqual(family(scraped, 'gateway_request_log_dropped_total', 'COUNTER').metrics, []);
  assert.ok(allOf(scraped, 'gateway_http_requests_total').length > 0, 'the per-route HTTP counter is still there');
  // the custom host's keep-alive pool, read from undici at scrape time
  const connected = value(sample(scraped, 'gateway_upstream_pool_connections', 'GAUGE', { agent: 'custom', origin: upstream.origin, state: 'connected' }));
  assert.ok(connected !== undefined && connected >= 1, `the fake upstream's pool has ${connected} connections`);
  // the limits' counters are exposed (counted by the limits tests)
  family(scraped, 'gateway_rate_limited_total', 'COUNTER');
  family(scraped, 'gateway_budget_refused_total', 'COUNTER');

  // bounded labels: nothing a client chooses per request beyond the (capped) model
  const labelValues = [...scraped.series.values()].flatMap((metrics) => metrics.flatMap((metric) => Object.values(metric.labels ?? {})));
  const forbidden = [...traces, ...Object.values(METADATA), gateway.adminKey, 'sk-provider-key-not-a-label', gateway.gateway.bootstrap.organisation.id, ...rows.flatMap((row) => [row.id, row.apiKeyId ?? 'none', row.userId ?? 'none', row.workspaceId ?? 'none'])].filter((item) => item !== 'none');
  for (const leak of forbidden) assert.ok(!labelValues.includes(leak), `no label value is ${leak}`);
});

test('time to first token and upstream tries, from the timing and attempt fields of the rows', async () => {
  const scraped = await scrape();
  const rows: RequestLogRow[] = [];
  for (const trace of traces) rows.push(...await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, trace));

  const streamed = rows.filter((row) => row.streamMode);
  assert.equal(streamed.length, 1);
  const firstByteMs = streamed[0]!.firstByteMs;
  assert.ok(firstByteMs !== null, 'the stream\'s row has its first-byte time');
  const ttft = histogram(scraped, 'gateway_time_to_first_token_seconds', { route: 'chat', provider: 'openai', model: 'gpt-4o-mini' });
  assert.equal(ttft.count, 1);
  assert.ok(ttft.sum !== undefined && Math.abs(ttft.sum - firstByteMs / 1000) < 1e-9);
  assert.equal(allOf(scraped, 'gateway_time_to_first_token_seconds_count').length, 1, 'JSON answers are not observed');

  // every request but the cache hit made one try; the provider error's try is a 5xx
  const tries = rows.flatMap((row) => row.attempts);
  assert.equal(tries.length, rows.filter((row) => row.cacheStatus !== 'HIT').length);
  assert.equal(value(sample(scraped, 'gateway_upstream_attempts_total', 'COUNTER', { provider: 'openai', status: '5xx' })), 1);
  assert.equal(value(sample(scraped, 'gateway_upstream_attempts_total', 'COUNTER', { provider: 'openai', status: '2xx' })), tries.length - 1);
  const tryDurations = histogram(scraped, 'gateway_upstream_attempt_duration_seconds', { provider: 'openai', status: '2xx' });
  assert.equal(tryDurations.count, tries.length - 1);
});
