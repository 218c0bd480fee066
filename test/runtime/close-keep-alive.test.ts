/**
 * Closing the gateway while a response is still being written: the client keeps its connection alive, the response
 * ends after close() began, and close() must then end that connection at once rather than wait for its keep-alive
 * timeout (72 s): a shutdown, or a test suite's after(), would otherwise hang that long.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;
const agent = new Agent({ keepAliveTimeout: 60_000 });

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
});

after(async () => {
  await agent.close();
  await upstream?.close();
});

test('a keep-alive connection whose response ends after close() began is closed when it ends', { timeout: 15_000 }, async () => {
  const response = await request(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-test',
      'x-gateway-api-key': gateway.adminKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': upstream.baseUrl,
    },
    // the first chunk comes at once, the rest after 300 ms: the response is still being written when close() begins
    body: JSON.stringify({ model: 'slow-300', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(response.statusCode, 200);
  const closing = gateway.close();
  const text = await response.body.text();
  assert.match(text, /\[DONE\]/);
  const ended = performance.now();
  await closing;
  const waited = performance.now() - ended;
  assert.ok(waited < 2_000, `close() resolved ${Math.round(waited)} ms after the response ended`);
});
