/**
 * GET /v1/realtime end to end: a `ws` client through the real gateway to a fake OpenAI Realtime upstream. Events
 * relayed both ways (text and binary), the provider key (never the gateway key) on the provider's handshake, the
 * gateway key in the header or the subprotocol form, refusals before any upgrade (bad key, blocked custom host,
 * missing model, a plain GET, the provider's own refusal), close codes passed on, and the session's log row. A
 * saved provider (`@slug`) session with its stored key and its cost in the log; usage counted as each response
 * ends, so a budget or a tokens rate limit used up mid-session stops the session with an error event.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { WebSocket, type RawData } from 'ws';
import { findRequestLogsByTraceId, type RequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/realtime-upstream.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration } from '../helpers/provider-records.ts';

const PROVIDER_KEY = 'sk-provider-realtime-key';

type Handshake = { kind: 'open'; socket: WebSocket; events: Inbox } | { kind: 'refused'; status: number; body: { error?: { message?: string; param?: string | null; code?: string | null } } };

function handshake(url: string, protocols: string[], headers: Record<string, string>): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { headers });
    // listening from the start: the first event can arrive in the same read as the 101
    const events = inbox(socket);
    socket.once('open', () => resolve({ kind: 'open', socket, events }));
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ kind: 'refused', status: response.statusCode ?? 0, body: JSON.parse(text) as Extract<Handshake, { kind: 'refused' }>['body'] });
        socket.terminate();
      });
    });
    socket.once('error', (error) => reject(error));
  });
}

interface Inbox {
  /** the next text event of that type (earlier ones of other types are kept in `seen`) */
  event(type: string): Promise<Record<string, unknown>>;
  binary(): Promise<Buffer>;
  closed: Promise<{ code: number; reason: string }>;
  seen: Array<Record<string, unknown>>;
}

function inbox(socket: WebSocket): Inbox {
  const seen: Array<Record<string, unknown>> = [];
  const binaries: Buffer[] = [];
  const waiters: Array<() => void> = [];
  let cursor = 0;
  socket.on('message', (data: RawData, isBinary) => {
    const buffer = data as Buffer;
    if (isBinary) binaries.push(buffer);
    else seen.push(JSON.parse(buffer.toString('utf8')) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })));
  const until = async <T>(take: () => T | undefined): Promise<T> => {
    for (;;) {
      const found = take();
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    seen,
    closed,
    event: (type) => until(() => {
      for (; cursor < seen.length; cursor += 1) if (seen[cursor]!.type === type) return seen[cursor++];
      return undefined;
    }),
    binary: () => until(() => binaries.shift()),
  };
}

describe('realtime (GET /v1/realtime)', () => {
  let gateway: TestGateway;
  let upstream: FakeRealtimeUpstream;
  let wsBase: string;

  before(async () => {
    upstream = await startFakeRealtimeUpstream();
    gateway = await startTestGateway();
    wsBase = `${gateway.origin.replace('http://', 'ws://')}/v1/realtime`;
  });

  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  function providerHeaders(traceId: string, extra: Record<string, string> = {}): Record<string, string> {
    return { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, authorization: `Bearer ${PROVIDER_KEY}`, 'x-gateway-trace-id': traceId, ...extra };
  }

  /**
   * The session's row: written once both sockets have closed, which for the gateway's provider side may be a moment
   * after the client saw its close; each round flushes the writer and reads, for at most 5 s.
   */
  async function rowOf(traceId: string): Promise<RequestLogRow> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      await gateway.gateway.requestLog.flush();
      const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
      if (rows.length > 0 || Date.now() > deadline) {
        assert.equal(rows.length, 1, `one row for trace ${traceId}`);
        return rows[0]!;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  test('header form: events relayed both ways, the provider key upstream, usage summed into one log row', async () => {
    const traceId = randomUUID();
    const before = upstream.handshakes.length;
    const opened = await handshake(`${wsBase}?model=gpt-realtime&voice=alloy`, [], { 'x-gateway-api-key': gateway.adminKey, ...providerHeaders(traceId) });
    assert.equal(opened.kind, 'open');
    const { socket, events } = opened as Extract<Handshake, { kind: 'open' }>;
    const created = await events.event('session.created');
    assert.equal((created.session as { model: string }).model, 'gpt-realtime');

    const seen = upstream.handshakes[before]!;
    assert.equal(upstream.handshakes.length, before + 1);
    assert.equal(seen.url, '/v1/realtime?model=gpt-realtime&voice=alloy', 'the query passes through');
    assert.equal(seen.headers.authorization, `Bearer ${PROVIDER_KEY}`);
    assert.equal(seen.headers['openai-beta'], 'realtime=v1');
    assert.ok(!JSON.stringify(seen.headers).includes(gateway.adminKey), 'the gateway key never reaches the provider');

    socket.send(JSON.stringify({ type: 'response.create', response: { metadata: { input_tokens: 12, output_tokens: 7 } } }));
    await events.event('response.created');
    const deltas = [await events.event('response.output_text.delta'), await events.event('response.output_text.delta')];
    assert.equal(deltas.map((delta) => delta.delta).join(''), 'Hello there');
    await events.event('response.done');
    socket.send(JSON.stringify({ type: 'response.create', response: { metadata: { input_tokens: 30, output_tokens: 3 } } }));
    await events.event('response.done');
    assert.deepEqual(upstream.frames.filter((frame) => frame.text?.includes('response.create')).length >= 2, true);

    const audio = Buffer.from([0, 1, 2, 250, 251, 252]);
    socket.send(audio, { binary: true });
    assert.deepEqual(await events.binary(), audio, 'binary frames relayed both ways');

    socket.close(1000, 'done');
    assert.equal((await events.closed).code, 1000);
    const row = await rowOf(traceId);
    assert.equal(row.route, 'realtime');
    assert.equal(row.method, 'GET');
    assert.equal(row.path, '/v1/realtime');
    assert.equal(row.status, 101);
    assert.equal(row.isSuccess, true);
    assert.equal(row.provider, 'openai');
    assert.equal(row.model, 'gpt-realtime');
    assert.equal(row.streamMode, true);
    assert.equal(row.promptTokens, 42);
    assert.equal(row.completionTokens, 10);
    assert.equal(row.totalTokens, 52);
    assert.ok(row.responseTimeMs >= 0 && row.firstByteMs !== null);
    assert.equal(row.attempts.length, 1);
    assert.ok(!JSON.stringify(row).includes(PROVIDER_KEY), 'no credential in the row');
  });

  test('subprotocol form: the gateway key in openai-insecure-api-key.<key>, `realtime` chosen, the key kept out of the log', async () => {
    const traceId = randomUUID();
    const before = upstream.handshakes.length;
    const opened = await handshake(`${wsBase}?model=gpt-realtime`, ['realtime', `openai-insecure-api-key.${gateway.adminKey}`, 'openai-beta.realtime-v1'], providerHeaders(traceId));
    assert.equal(opened.kind, 'open');
    const { socket, events } = opened as Extract<Handshake, { kind: 'open' }>;
    assert.equal(socket.protocol, 'realtime');
    await events.event('session.created');
    socket.send(JSON.stringify({ type: 'response.create' }));
    await events.event('response.done');
    const seen = upstream.handshakes[before]!;
    assert.equal(seen.headers.authorization, `Bearer ${PROVIDER_KEY}`);
    assert.equal(seen.headers['sec-websocket-protocol'], undefined, 'the client\'s subprotocols (and the key in them) stay at the gateway');
    socket.close();
    await events.closed;
    const row = await rowOf(traceId);
    assert.equal(row.promptTokens, 10);
    assert.equal(row.completionTokens, 5);
    assert.ok(!JSON.stringify(row).includes(gateway.adminKey), 'the gateway key is not logged');
  });

  test('a close from the provider reaches the client with its code and reason, and the row records it', async () => {
    const traceId = randomUUID();
    const opened = await handshake(`${wsBase}?model=gpt-realtime`, [], { 'x-gateway-api-key': gateway.adminKey, ...providerHeaders(traceId) });
    const { socket, events } = opened as Extract<Handshake, { kind: 'open' }>;
    await events.event('session.created');
    socket.send(JSON.stringify({ type: 'test.close', code: 4001, reason: 'provider says bye' }));
    assert.deepEqual(await events.closed, { code: 4001, reason: 'provider says bye' });
    const row = await rowOf(traceId);
    assert.equal(row.status, 101);
    assert.equal(row.isSuccess, false);
    assert.equal(row.error?.code, 'websocket_close_4001');
  });

  test('refused before any upgrade: a bad or missing gateway key (401), with nothing sent upstream', async () => {
    const before = upstream.handshakes.length;
    const bad = await handshake(`${wsBase}?model=gpt-realtime`, [], { 'x-gateway-api-key': 'not-a-key', ...providerHeaders(randomUUID()) });
    assert.equal(bad.kind, 'refused');
    assert.equal((bad as Extract<Handshake, { kind: 'refused' }>).status, 401);
    assert.equal((bad as Extract<Handshake, { kind: 'refused' }>).body.error?.code, 'invalid_api_key');
    const badProtocol = await handshake(`${wsBase}?model=gpt-realtime`, ['realtime', 'openai-insecure-api-key.not-a-key'], providerHeaders(randomUUID()));
    assert.equal((badProtocol as Extract<Handshake, { kind: 'refused' }>).status, 401);
    const missing = await handshake(`${wsBase}?model=gpt-realtime`, [], providerHeaders(randomUUID()));
    assert.equal((missing as Extract<Handshake, { kind: 'refused' }>).status, 401);
    assert.equal((missing as Extract<Handshake, { kind: 'refused' }>).body.error?.code, 'missing_api_key');
    assert.equal(upstream.handshakes.length, before);
  });

  test('a blocked custom host is refused (400) without a connection; a missing model is a 400 naming it', async () => {
    const before = upstream.handshakes.length;
    const traceId = randomUUID();
    const blocked = await handshake(`${wsBase}?model=gpt-realtime`, [], { 'x-gateway-api-key': gateway.adminKey, ...providerHeaders(traceId, { 'x-gateway-custom-host': 'http://169.254.169.254/v1' }) });
    assert.equal(blocked.kind, 'refused');
    assert.equal((blocked as Extract<Handshake, { kind: 'refused' }>).status, 400);
    assert.equal((blocked as Extract<Handshake, { kind: 'refused' }>).body.error?.param, 'x-gateway-custom-host');
    const row = await rowOf(traceId);
    assert.equal(row.status, 400);
    assert.equal(row.route, 'realtime');
    const noModel = await handshake(wsBase, [], { 'x-gateway-api-key': gateway.adminKey, ...providerHeaders(randomUUID()) });
    assert.equal((noModel as Extract<Handshake, { kind: 'refused' }>).status, 400);
    assert.equal((noModel as Extract<Handshake, { kind: 'refused' }>).body.error?.param, 'model');
    assert.equal(upstream.handshakes.length, before);
  });

  test('the provider\'s refusal of the handshake reaches the client with its status and body', async () => {
    const refused = await handshake(`${wsBase}?model=refuse-403`, [], { 'x-gateway-api-key': gateway.adminKey, ...providerHeaders(randomUUID()) });
    assert.equal(refused.kind, 'refused');
    assert.equal((refused as Extract<Handshake, { kind: 'refused' }>).status, 403);
    assert.equal((refused as Extract<Handshake, { kind: 'refused' }>).body.error?.code, 'fake_refusal');
  });

  test('rate limits apply when the session opens: a key limited to 1 request a minute gets a 429 on the second session, before any upstream connection', async () => {
    const call = adminClient(gateway.baseURL);
    const created = await call<{ id: string; key: string }>('POST', '/api-keys/workspace/service', gateway.adminKey, {
      name: 'realtime-limited', scopes: ['completions.write'], workspace_id: gateway.gateway.bootstrap.workspace.id, rate_limits: [{ type: 'requests', unit: 'rpm', value: 1 }],
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const headers = { 'x-gateway-api-key': created.body.key, ...providerHeaders(randomUUID()) };
    const first = await handshake(`${wsBase}?model=gpt-realtime`, [], headers);
    assert.equal(first.kind, 'open');
    const { socket, events } = first as Extract<Handshake, { kind: 'open' }>;
    socket.close(1000);
    await events.closed;
    const before = upstream.handshakes.length;
    const second = await handshake(`${wsBase}?model=gpt-realtime`, [], { ...headers, 'x-gateway-trace-id': randomUUID() });
    assert.equal(second.kind, 'refused');
    assert.equal((second as Extract<Handshake, { kind: 'refused' }>).status, 429);
    assert.equal(upstream.handshakes.length, before, 'a refused session never reaches the provider');
  });

  test('a plain GET (no upgrade) answers 426 in the error shape; without a key 401', async () => {
    const plain = await request(`${gateway.baseURL}/realtime?model=gpt-realtime`, { headers: { 'x-gateway-api-key': gateway.adminKey } });
    assert.equal(plain.statusCode, 426);
    const body = (await plain.body.json()) as { error: { code: string; type: string } };
    assert.equal(body.error.code, 'upgrade_required');
    const anonymous = await request(`${gateway.baseURL}/realtime?model=gpt-realtime`);
    assert.equal(anonymous.statusCode, 401);
    await anonymous.body.dump();
  });

  describe('saved providers and limits as the usage arrives', () => {
    const STORED_KEY = 'sk-stored-realtime-key-0099';
    const call = () => adminClient(gateway.baseURL);

    before(async () => {
      const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      const integration = await insertIntegration(gateway.gateway.database.db, cipher, { organisationId, slug: 'realtime-integration', key: STORED_KEY, global: true, configurations: { custom_host: upstream.baseUrl } });
      for (const body of [
        { name: 'Realtime team', integration_id: integration.slug, slug: 'realtime-team' },
        { name: 'Realtime budgeted', integration_id: integration.slug, slug: 'realtime-budgeted', usage_limits: { credit_limit: 50, type: 'tokens' } },
      ]) {
        const created = await call()('POST', '/providers', gateway.adminKey, body);
        assert.equal(created.status, 200, JSON.stringify(created.body));
      }
      // $1 and $3 per million tokens (the price is in cents per token)
      const priced = await call()('PUT', '/model-pricing/openai/gpt-realtime-priced', gateway.adminKey, { pay_as_you_go: { request_token: { price: 0.0001 }, response_token: { price: 0.0003 } } });
      assert.equal(priced.status, 200, JSON.stringify(priced.body));
    });

    /** asks for one response with these counts and waits for its response.done */
    async function respond(socket: WebSocket, events: Inbox, input: number, output: number) {
      socket.send(JSON.stringify({ type: 'response.create', response: { metadata: { input_tokens: input, output_tokens: output } } }));
      return events.event('response.done');
    }

    test('an @slug session: the stored key upstream, no Authorization needed, the usage and its cost in the log', async () => {
      const traceId = randomUUID();
      const before = upstream.handshakes.length;
      const opened = await handshake(`${wsBase}?model=gpt-realtime-priced`, [], { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': '@realtime-team', 'x-gateway-trace-id': traceId });
      assert.equal(opened.kind, 'open');
      const { socket, events } = opened as Extract<Handshake, { kind: 'open' }>;
      assert.equal(upstream.handshakes[before]!.headers.authorization, `Bearer ${STORED_KEY}`);
      await respond(socket, events, 12, 7);
      await respond(socket, events, 30, 3);
      socket.close(1000);
      await events.closed;
      const row = await rowOf(traceId);
      assert.equal(row.providerSlug, 'realtime-team');
      assert.equal(row.provider, 'openai');
      assert.deepEqual([row.promptTokens, row.completionTokens, row.totalTokens], [42, 10, 52]);
      // 42 x $0.000001 + 10 x $0.000003
      assert.equal(row.cost, '0.000072000000');
      assert.equal(row.error, null);
    });

    test('a budget used up mid-session: the response that used it up is delivered, then an error event and close 1008', async () => {
      const traceId = randomUUID();
      const opened = await handshake(`${wsBase}?model=gpt-realtime`, [], { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': '@realtime-budgeted', 'x-gateway-trace-id': traceId });
      assert.equal(opened.kind, 'open');
      const { socket, events } = opened as Extract<Handshake, { kind: 'open' }>;
      await respond(socket, events, 12, 7);
      // 19 of 50 used: the session goes on
      const done = await respond(socket, events, 30, 3);
      assert.equal((done.response as { usage: { total_tokens: number } }).usage.total_tokens, 33);
      const error = await events.event('error');
      assert.equal((error.error as { code: string }).code, 'usage_limit_exhausted');
      assert.match((error.error as { message: string }).message, /@realtime-budgeted/);
      const closed = await events.closed;
      assert.equal(closed.code, 1008);
      assert.equal(closed.reason, 'limit reached: usage_limit_exhausted');
      const row = await rowOf(traceId);
      assert.equal(row.totalTokens, 52);
      assert.equal(row.error?.code, 'usage_limit_exhausted');

      const again = await handshake(`${wsBase}?model=gpt-realtime`, [], { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': '@realtime-budgeted', 'x-gateway-trace-id': randomUUID() });
      assert.equal(again.kind, 'refused', 'the spent budget refuses the next session at open');
      assert.equal((again as Extract<Handshake, { kind: 'refused' }>).status, 429);
    });

    test('a tokens rate limit used up mid-session stops it the same way', async () => {
      const created = await call()<{ key: string }>('POST', '/api-keys/workspace/service', gateway.adminKey, {
        name: 'realtime-tokens', scopes: ['completions.write'], workspace_id: gateway.gateway.bootstrap.workspace.id, rate_limits: [{ type: 'tokens', unit: 'rpm', value: 25 }],
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const traceId = randomUUID();
      const opened = await handshake(`${wsBase}?model=gpt-realtime`, [], { 'x-gateway-api-key': created.body.key, ...providerHeaders(traceId) });
      assert.equal(opened.kind, 'open');
      const { socket, events } = opened as Extract<Handshake, { kind: 'open' }>;
      await respond(socket, events, 12, 7);
      await respond(socket, events, 30, 3);
      const error = await events.event('error');
      assert.equal((error.error as { code: string }).code, 'rate_limit_exceeded');
      assert.equal((await events.closed).code, 1008);
      assert.equal((await rowOf(traceId)).error?.code, 'rate_limit_exceeded');
    });
  });
});
