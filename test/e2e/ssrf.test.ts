/**
 * The SSRF guard end to end: without an allowlist no custom host on a loopback, private, link-local, CGNAT,
 * unique-local or unspecified address is ever connected to, however it is spelled; with the operator's allowlist
 * the same hosts are reached.
 */
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { systemLookupAll, type LookupAll } from '../../src/upstream/ssrf-guard.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let upstream: FakeUpstream;
let port: number;
let open: TestGateway;
let injected: TestGateway;
let allowLoopback: TestGateway;
let allowLocalhost: TestGateway;

// localhost is expected to resolve to 127.0.0.1, where the fake listens
const localhostAddresses = await dns.promises.lookup('localhost', { all: true });
const localhostIsV4Loopback = localhostAddresses.some((entry) => entry.address === '127.0.0.1');

/** evil.test and mixed.test only exist here; localhost "resolves" to a public address at check time (rebinding) */
const fakeLookup: LookupAll = async (hostname) => {
  if (hostname === 'evil.test') return [{ address: '127.0.0.1', family: 4 }];
  if (hostname === 'mixed.test') return [{ address: '93.184.216.34', family: 4 }, { address: '10.1.2.3', family: 4 }];
  if (hostname === 'localhost') return [{ address: '93.184.216.34', family: 4 }];
  return systemLookupAll(hostname);
};

before(async () => {
  upstream = await startFakeUpstream();
  port = Number(new URL(upstream.origin).port);
  [open, injected, allowLoopback, allowLocalhost] = await Promise.all([
    startTestGateway({ env: { GATEWAY_CUSTOM_HOST_ALLOWLIST: '' } }),
    startTestGateway({ env: { GATEWAY_CUSTOM_HOST_ALLOWLIST: '' }, overrides: { lookup: fakeLookup } }),
    startTestGateway({ env: { GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1' } }),
    startTestGateway({ env: { GATEWAY_CUSTOM_HOST_ALLOWLIST: 'localhost' } }),
  ]);
});

after(async () => {
  await Promise.all([open, injected, allowLoopback, allowLocalhost].map((gateway) => gateway.close()));
  await upstream.close();
});

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

async function chat(gateway: TestGateway, customHost: string) {
  const response = await request(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': gateway.adminKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': customHost,
      authorization: 'Bearer sk-provider-token',
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as ErrorBody & Record<string, unknown> };
}

async function assertRefused(gateway: TestGateway, customHost: string, code: string) {
  const { status, body } = await chat(gateway, customHost);
  assert.equal(status, 400, `${customHost}: ${JSON.stringify(body)}`);
  assert.equal(body.error.type, 'invalid_request_error');
  assert.equal(body.error.param, 'x-gateway-custom-host');
  assert.equal(body.error.code, code, `${customHost}: ${body.error.message}`);
  assert.equal(upstream.connections, 0, `${customHost}: the fake saw no connection`);
  return body.error;
}

describe('without an allowlist', () => {
  const blocked = () => [
    `http://127.0.0.1:${port}/v1`,
    `http://localhost:${port}/v1`,
    `http://LocalHost.:${port}/v1`,
    'http://169.254.169.254/latest',
    'http://10.0.0.5/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://127.1:${port}/`,
    `https://127.0.0.1:${port}/v1`,
  ];

  test('loopback, private, link-local, CGNAT, ULA and unspecified hosts are custom_host_blocked', async () => {
    for (const host of blocked()) await assertRefused(open, host, 'custom_host_blocked');
  });

  test('malformed custom hosts are invalid_custom_host', async () => {
    for (const host of [
      `ftp://127.0.0.1:${port}/v1`,
      `http://user:secret@127.0.0.1:${port}/v1`,
      `http://user@example.com/v1`,
      'file:///etc/passwd',
      'not a url',
      '/v1/relative',
      `gopher://127.0.0.1:${port}/`,
    ]) {
      await assertRefused(open, host, 'invalid_custom_host');
    }
  });

  test('names resolving to a blocked address are custom_host_blocked (injected lookup)', async () => {
    await assertRefused(injected, `http://evil.test:${port}/v1`, 'custom_host_blocked');
    // every address of the answer is checked, not only the first
    await assertRefused(injected, `http://mixed.test:${port}/v1`, 'custom_host_blocked');
  });

  test('DNS rebinding: a name that passed the check but connects to loopback is refused at connect time', async () => {
    // the injected lookup (used by the check) says localhost is public; the connection's own lookup says 127.0.0.1
    const error = await assertRefused(injected, `http://localhost:${port}/v1`, 'custom_host_blocked');
    assert.match(error.message, /^The custom host resolves to a blocked address/, 'refused by the connect-time lookup');
  });

  test('the fake upstream saw no connection and no request', () => {
    assert.equal(upstream.connections, 0);
    assert.equal(upstream.requests.length, 0);
  });
});

describe('with an allowlist', () => {
  test('GATEWAY_CUSTOM_HOST_ALLOWLIST=127.0.0.1 reaches the fake', async () => {
    const gateway = allowLoopback;
    const { status, body } = await chat(gateway, upstream.baseUrl);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(upstream.requests.at(-1)?.url, '/v1/chat/completions');
    // the allowlisted address does not open the rest of loopback or private space
    const before = upstream.connections;
    const refused = await chat(gateway, `http://127.0.0.2:${port}/v1`);
    assert.equal(refused.body.error.code, 'custom_host_blocked');
    assert.equal((await chat(gateway, 'http://10.0.0.5/')).body.error.code, 'custom_host_blocked');
    assert.equal(upstream.connections, before);
  });

  test('GATEWAY_CUSTOM_HOST_ALLOWLIST=localhost reaches http://localhost:<port>/v1', { skip: !localhostIsV4Loopback && `localhost resolves to ${JSON.stringify(localhostAddresses)}` }, async () => {
    const gateway = allowLocalhost;
    const before = upstream.requests.length;
    const { status, body } = await chat(gateway, `http://localhost:${port}/v1`);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(upstream.requests.length, before + 1);
    assert.equal(upstream.requests.at(-1)?.headers.host, `localhost:${port}`);
    // the name is allowlisted, not the address behind it
    const refused = await chat(gateway, `http://127.0.0.1:${port}/v1`);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, 'custom_host_blocked');
    assert.equal(upstream.requests.length, before + 1);
  });
});
