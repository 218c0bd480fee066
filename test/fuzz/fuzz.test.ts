/**
 * The gateway's own fuzz test: seeded malformed bodies, headers, paths, ids and queries across every operation of
 * the OpenAPI document (inference and admin), over real HTTP. Whatever is sent:
 * - no answer is a 5xx;
 * - every error is JSON in the error shape `{error: {message, type, param, code}}`;
 * - the process stays up (and still answers /health at the end);
 * - nothing certainly malformed reaches the fake upstream.
 * Bounded: a fixed number of cases per operation and a deadline, well under a minute. FUZZ_SEED replays a run.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { BAD_IDS, malformedBody, malformedHeaders, malformedQuery, mistypedBody, pick, prng, TRAVERSAL_PATHS, type Random } from './generators.ts';
import { operationsOf, type Operation } from './samples.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const CASES_PER_OPERATION = 8;
const DEADLINE_MS = 40_000;

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Client;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  client = new Client(gateway.origin, { pipelining: 1 });
});

after(async () => {
  await client.close();
  await gateway.close();
  await upstream.close();
});

interface Sent {
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body?: Buffer | undefined;
  label: string;
  /** the gateway must refuse it: nothing may reach the upstream */
  certain: boolean;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

async function send(sent: Sent): Promise<Answer> {
  const flat: string[] = [];
  for (const [name, value] of sent.headers) flat.push(name, value);
  // a raw path: undici's Client sends it as given (no URL resolution of dot segments)
  const response = await client.request({ method: sent.method as 'GET', path: sent.path, headers: flat, body: sent.body ?? null });
  const text = await response.body.text();
  const type = response.headers['content-type'];
  return { status: response.statusCode, contentType: Array.isArray(type) ? type[0]! : (type ?? ''), text };
}

function baseHeaders(operation: Pick<Operation, 'inference'> | undefined): Array<[string, string]> {
  const headers: Array<[string, string]> = [['x-gateway-api-key', gateway.adminKey]];
  if (operation === undefined || operation.inference) {
    headers.push(['x-gateway-provider', 'openai'], ['x-gateway-custom-host', upstream.baseUrl], ['authorization', 'Bearer sk-fuzz']);
  }
  return headers;
}

function fillPath(operation: Operation, random: Random, badId: boolean): string {
  let path = operation.template;
  for (const name of operation.pathParams) {
    const value = badId && random() < 0.7 ? pick(random, BAD_IDS) : '00000000-0000-4000-8000-000000000000';
    path = path.replace(`{${name}}`, value);
  }
  // the pass-through wildcards: a plausible provider path
  return path.replace('{provider-endpoint}', 'files').replace('{route}', 'chat/completions').replace(/\{[^}]+\}/g, 'x');
}

function jsonHeaders(headers: Array<[string, string]>, contentType = 'application/json'): Array<[string, string]> {
  return [...headers, ['content-type', contentType]];
}

function caseFor(operation: Operation, random: Random): Sent {
  const hasBody = operation.sample !== undefined || ['POST', 'PUT', 'PATCH'].includes(operation.method);
  const kinds = ['id', 'query', 'headers'];
  if (hasBody) kinds.push('body', 'body', 'mistyped');
  const kind = pick(random, kinds);
  const headers = baseHeaders(operation);
  const sample = operation.sample ?? {};
  switch (kind) {
    case 'body': {
      const body = malformedBody(random, sample);
      return { method: operation.method, path: fillPath(operation, random, false), headers: jsonHeaders(headers, body.contentType), body: body.bytes, label: `body: ${body.label}`, certain: body.certain };
    }
    case 'mistyped': {
      const { body, label } = mistypedBody(random, sample);
      return { method: operation.method, path: fillPath(operation, random, false), headers: jsonHeaders(headers), body: Buffer.from(JSON.stringify(body)), label: `mistyped ${label}`, certain: false };
    }
    case 'query': {
      const { query, label } = malformedQuery(random, operation.queryParams);
      const body = hasBody ? Buffer.from(JSON.stringify(sample)) : undefined;
      // certain only where the parameter is declared single-valued (an undeclared one may legitimately be ignored)
      return { method: operation.method, path: `${fillPath(operation, random, false)}?${query}`, headers: hasBody ? jsonHeaders(headers) : headers, body, label: `query ${label}`, certain: operation.queryParams.length > 0 && !label.endsWith('absurdly long') };
    }
    case 'headers': {
      const bad = malformedHeaders(random);
      const names = new Set(bad.headers.map(([name]) => name));
      const kept = headers.filter(([name]) => !names.has(name));
      const body = hasBody ? Buffer.from(JSON.stringify(sample)) : undefined;
      const all = [...kept, ...bad.headers];
      // gateway headers only matter where a provider is called: elsewhere they may be ignored
      return { method: operation.method, path: fillPath(operation, random, false), headers: hasBody ? jsonHeaders(all) : all, body, label: `headers: ${bad.label}`, certain: operation.inference };
    }
    default: {
      const body = hasBody ? Buffer.from(JSON.stringify(sample)) : undefined;
      return { method: operation.method, path: fillPath(operation, random, true), headers: hasBody ? jsonHeaders(headers) : headers, body, label: 'bad path id', certain: false };
    }
  }
}

function checkAnswer(sent: Sent, answer: Answer, seen: { before: number }): void {
  const where = `${sent.method} ${sent.path} (${sent.label}, seed ${SEED})`;
  assert.ok(answer.status < 500, `${where}: answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  if (answer.status >= 400) {
    assert.match(answer.contentType, /application\/json/, `${where}: error content type ${answer.contentType}`);
    let body: { error?: Record<string, unknown> };
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      assert.fail(`${where}: error body is not JSON: ${answer.text.slice(0, 200)}`);
    }
    const error = body.error;
    assert.ok(error && typeof error === 'object', `${where}: no error object: ${answer.text.slice(0, 200)}`);
    assert.equal(typeof error.message, 'string', `${where}: error.message`);
    assert.equal(typeof error.type, 'string', `${where}: error.type`);
    assert.ok('param' in error && 'code' in error, `${where}: error.param and error.code must be present`);
  }
  if (sent.certain) {
    assert.ok(answer.status >= 400, `${where}: malformed input was accepted with ${answer.status}`);
    assert.equal(upstream.requests.length, seen.before, `${where}: malformed input reached the upstream: ${upstream.requests.at(-1)?.url}`);
  }
}

test('seeded malformed input across every documented operation: no 5xx, errors in the error shape, nothing malformed forwarded', async () => {
  const documentAnswer = await send({ method: 'GET', path: '/openapi.json', headers: [], label: 'document', certain: false });
  assert.equal(documentAnswer.status, 200);
  const operations = operationsOf(JSON.parse(documentAnswer.text) as Record<string, unknown>);
  assert.ok(operations.length >= 30, `the document lists only ${operations.length} operations`);
  const random = prng(SEED);
  const started = Date.now();
  let sentCount = 0;
  for (const operation of operations) {
    for (let i = 0; i < CASES_PER_OPERATION && Date.now() - started < DEADLINE_MS; i++) {
      const sent = caseFor(operation, random);
      const seen = { before: upstream.requests.length };
      checkAnswer(sent, await send(sent), seen);
      sentCount += 1;
    }
  }
  for (const path of TRAVERSAL_PATHS) {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const body = method === 'POST' ? Buffer.from('{"model":"m"}') : undefined;
      const sent: Sent = { method, path, headers: body ? jsonHeaders(baseHeaders(undefined)) : baseHeaders(undefined), body, label: 'path traversal', certain: true };
      const seen = { before: upstream.requests.length };
      checkAnswer(sent, await send(sent), seen);
      sentCount += 1;
    }
  }
  assert.ok(sentCount > operations.length, `only ${sentCount} cases ran before the deadline`);
  const health = await send({ method: 'GET', path: '/health', headers: [], label: 'health', certain: false });
  assert.equal(health.status, 200, 'the gateway still answers after the fuzz run');
});
