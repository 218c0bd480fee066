import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { WEBHOOK_MAX_BODY_BYTES, createWebhookCheck } from '../../src/guardrails/checks/webhook.ts';
import { runChecks } from '../../src/guardrails/run.ts';
import { parseAllowlist, type LookupAll } from '../../src/upstream/ssrf-guard.ts';
import { makeContext, makeRegistry, rejects400, runOne } from './helpers.ts';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

const received: Received[] = [];
let connections = 0;
const pending = new Set<http.ServerResponse>();

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ path: request.url ?? '', headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
    const json = (status: number, body: string) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(body);
    };
    switch (request.url) {
      case '/pass':
        return json(200, JSON.stringify({ verdict: true, explanation: 'looks fine' }));
      case '/fail':
        return json(200, JSON.stringify({ verdict: false, explanation: 'policy 7 violated' }));
      case '/slow':
        pending.add(response); // never answered; closed in after()
        return;
      case '/500':
        return json(500, JSON.stringify({ verdict: true }));
      case '/redirect':
        response.writeHead(302, { location: '/pass' });
        return response.end();
      case '/garbage':
        return json(200, '<html>not json');
      case '/no-verdict':
        return json(200, JSON.stringify({ verdict: 'yes' }));
      case '/huge':
        return json(200, JSON.stringify({ verdict: true, explanation: 'x'.repeat(WEBHOOK_MAX_BODY_BYTES) }));
      default:
        return json(404, '{}');
    }
  });
});
server.on('connection', () => {
  connections += 1;
});

let base = '';
const allowlisted = makeRegistry({ allowlist: parseAllowlist(['127.0.0.1']) });
const closed = makeRegistry(); // empty allowlist: loopback is refused

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const response of pending) response.destroy();
  await Promise.all([allowlisted.close(), closed.close()]);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('default.webhook', () => {
  it('posts request, response and eventType as JSON with the configured headers, and passes on verdict true', async () => {
    const request = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const verdict = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/pass`, headers: { 'X-Api-Key': 's3cret' } }, { request });
    assert.equal(verdict.verdict, true);
    assert.equal(verdict.explanation, 'looks fine');
    const last = received.at(-1)!;
    assert.equal(last.path, '/pass');
    assert.equal(last.headers['x-api-key'], 's3cret');
    assert.equal(last.headers['content-type'], 'application/json');
    assert.deepEqual(last.body, { request, eventType: 'beforeRequestHook' }); // response undefined is not serialised
  });

  it('sends afterRequestHook and the response in the output phase', async () => {
    const response = { id: 'c1', choices: [] };
    await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/pass` }, { phase: 'output', response });
    const last = received.at(-1)!;
    assert.equal((last.body as { eventType: string }).eventType, 'afterRequestHook');
    assert.deepEqual((last.body as { response: unknown }).response, response);
  });

  it('fails with the webhook explanation on verdict false', async () => {
    const verdict = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/fail` });
    assert.equal(verdict.verdict, false);
    assert.equal(verdict.explanation, 'policy 7 violated');
  });

  it('fails closed on a timeout, promptly', async () => {
    const started = Date.now();
    const verdict = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/slow`, timeout: 150 });
    assert.equal(verdict.verdict, false);
    assert.equal(verdict.explanation, 'The webhook did not answer within 150 ms.');
    assert.ok(Date.now() - started < 2000);
  });

  it('fails closed on a non-2xx status, including a redirect it does not follow', async () => {
    const error = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/500` });
    assert.equal(error.verdict, false);
    assert.equal(error.explanation, 'The webhook answered with status 500.');
    const before = received.length;
    const redirect = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/redirect` });
    assert.equal(redirect.verdict, false);
    assert.equal(received.length, before + 1); // /pass was never requested
  });

  it('fails closed on a body that is not JSON, has no boolean verdict, or is too large', async () => {
    const garbage = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/garbage` });
    assert.deepEqual([garbage.verdict, garbage.explanation], [false, 'The webhook answer is not JSON.']);
    const noVerdict = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/no-verdict` });
    assert.deepEqual([noVerdict.verdict, noVerdict.explanation], [false, 'The webhook answer has no boolean verdict.']);
    const huge = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/huge` });
    assert.equal(huge.verdict, false);
    assert.match(huge.explanation, /exceeds/);
  });

  it('fails closed when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await runChecks([{ id: 'default.webhook', parameters: { webhookURL: `${base}/slow` } }], makeContext(), {
      registry: allowlisted,
      signal: controller.signal,
    });
    assert.equal(result.passed, false);
    assert.equal(result.verdicts[0]!.explanation, 'The webhook call was aborted.');
  });

  it('refuses a loopback URL without the allowlist, before connecting', async () => {
    const before = connections;
    const verdict = await runOne(closed, 'default.webhook', { webhookURL: `${base}/pass` });
    assert.equal(verdict.verdict, false);
    assert.match(verdict.explanation, /^The webhook URL is not allowed: .*loopback/);
    assert.equal(connections, before);
  });

  it('refuses a name that re-resolves to loopback at connect time (DNS rebinding), without connecting', async () => {
    const port = (server.address() as AddressInfo).port;
    const publicAnswer: LookupAll = async () => [{ address: '93.184.216.34', family: 4 }];
    const check = createWebhookCheck({
      allowlist: parseAllowlist([]),
      lookup: publicAnswer,
      resolve: (_hostname, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]),
    });
    try {
      const before = connections;
      const bound = check.bind({ webhookURL: `http://hooks.example.com:${port}/pass` }, 'parameters');
      const result = await bound(makeContext(), {});
      assert.equal(result.verdict, false);
      assert.equal(result.explanation, 'The webhook host resolves to an address that is not allowed.');
      assert.equal(connections, before);
    } finally {
      await check.close();
    }
  });

  it('rejects bad parameters with a 400 naming them', async () => {
    const hook = (parameters: Record<string, unknown>) => runOne(allowlisted, 'default.webhook', parameters);
    await rejects400(hook({}), 'checks[0].parameters.webhookURL');
    await rejects400(hook({ webhookURL: 'not a url' }), 'checks[0].parameters.webhookURL');
    await rejects400(hook({ webhookURL: 'file:///etc/passwd' }), 'checks[0].parameters.webhookURL');
    await rejects400(hook({ webhookURL: `${base}/pass`, timeout: 30_001 }), 'checks[0].parameters.timeout');
    await rejects400(hook({ webhookURL: `${base}/pass`, timeout: 0 }), 'checks[0].parameters.timeout');
    await rejects400(hook({ webhookURL: `${base}/pass`, headers: { Host: 'evil' } }), 'checks[0].parameters.headers.Host');
    await rejects400(hook({ webhookURL: `${base}/pass`, headers: { 'x-a': 'v\r\nx-b: 1' } }), 'checks[0].parameters.headers.x-a');
    await rejects400(hook({ webhookURL: `${base}/pass`, headers: { 'x-a': 1 } }), 'checks[0].parameters.headers.x-a');
  });

  it('accepts the vendor failOnError flag but still fails closed', async () => {
    const verdict = await runOne(allowlisted, 'default.webhook', { webhookURL: `${base}/500`, failOnError: false });
    assert.equal(verdict.verdict, false);
  });
});
