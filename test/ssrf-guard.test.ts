import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { GatewayError } from '../src/core/errors.ts';
import {
  CUSTOM_HOST_BLOCKED_CODE,
  blockedReason,
  checkCustomHost,
  guardedLookup,
  isAllowlisted,
  parseAllowlist,
  systemLookupAll,
  type LookupAll,
} from '../src/upstream/ssrf-guard.ts';

const EMPTY = parseAllowlist([]);

/** A fake resolver: a fixed table, counting calls; unknown names fail like getaddrinfo. */
function fakeLookup(table: Record<string, string[]>): LookupAll & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

const NO_DNS: LookupAll = async (hostname) => {
  throw new Error(`lookup must not be called for ${hostname}`);
};

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<GatewayError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof GatewayError, `expected a GatewayError, got ${String(caught)}`);
  assert.equal(caught.status, 400);
  assert.equal(caught.param, 'x-gateway-custom-host');
  assert.equal(caught.code, code);
  return caught;
}

// [address, expected reason]
const BLOCKED_V4: Array<[string, string]> = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this-network'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.254', 'cgnat'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmark'],
  ['198.19.255.254', 'benchmark'],
  ['192.88.99.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['192.175.48.1', 'as112'], // ipaddr.js catch-all
];

const BLOCKED_V6: Array<[string, string]> = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:0:127.0.0.1', 'loopback'], // IPv4-translated (RFC 6145)
  ['::127.0.0.1', 'ipv4-compatible'],
  ['::8.8.8.8', 'ipv4-compatible'], // deprecated form is blocked even with a public embedded address
  ['::102:304', 'ipv4-compatible'],
  ['64:ff9b::127.0.0.1', 'loopback'], // NAT64 embedded
  ['64:ff9b::a9fe:a9fe', 'link-local'], // NAT64 of 169.254.169.254
  ['64:ff9b:1::1', 'nat64-local'],
  ['2002:7f00:1::1', 'loopback'], // 6to4 embedded 127.0.0.1
  ['2002:c0a8:101::', 'private'], // 6to4 embedded 192.168.1.1
  ['fc00::1', 'unique-local'],
  ['fd00::1', 'unique-local'],
  ['fdff:ffff::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['2001:db8:ffff::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001::1', 'teredo'],
  ['2001:2::1', 'benchmark'],
  ['2001:10::1', 'reserved'],
  ['100::1', 'discard'],
  ['4000::1', 'reserved'], // outside 2000::/3 global unicast
  ['1::1', 'reserved'],
];

const ALLOWED_ADDRESSES = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '100.63.255.255', // just below CGNAT
  '100.128.0.0', // just above CGNAT
  '172.15.255.255', // just below 172.16/12
  '172.32.0.0', // just above 172.16/12
  '198.17.255.255', // just below benchmark
  '198.20.0.0', // just above benchmark
  '223.255.255.255', // just below multicast
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8', // mapped public
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '2002:808:808::1', // 6to4 of 8.8.8.8
];

describe('blockedReason', () => {
  for (const [address, reason] of [...BLOCKED_V4, ...BLOCKED_V6]) {
    it(`blocks ${address} as ${reason}`, () => {
      assert.equal(blockedReason(address), reason);
    });
  }

  for (const address of ALLOWED_ADDRESSES) {
    it(`allows global unicast ${address}`, () => {
      assert.equal(blockedReason(address), null);
    });
  }

  it('reads odd IPv4 spellings the way a resolver would', () => {
    assert.equal(blockedReason('2130706433'), 'loopback');
    assert.equal(blockedReason('0x7f.1'), 'loopback');
  });

  it('blocks what is not an IP address', () => {
    for (const junk of ['', 'localhost', 'example.com', '1.2.3.4.5', ':::', '[::1', 'fe80::zz']) {
      assert.equal(blockedReason(junk), 'invalid-address', junk);
    }
  });
});

describe('checkCustomHost: IP literals', () => {
  const blockedUrls = [
    'http://127.0.0.1/',
    'http://127.0.0.1:8080/v1',
    'http://0.0.0.0/',
    'http://10.0.0.5/v1',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.1.1/',
    'http://198.18.0.1/',
    'http://192.0.2.1/',
    'http://224.0.0.1/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://2130706433/', // 127.0.0.1 as a single number
    'http://0x7f.1/', // 127.0.0.1 in hex, two parts
    'http://0177.0.0.1/', // octal
    'http://127.1/',
    'https://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[ff02::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:a00:1::]/',
    'http://[2001:db8::1]/',
    'http://[::127.0.0.1]/',
  ];
  for (const raw of blockedUrls) {
    it(`blocks ${raw}`, async () => {
      await rejectsWith(checkCustomHost(raw, EMPTY, NO_DNS), 'custom_host_blocked');
    });
  }

  it('accepts public literals without a DNS lookup', async () => {
    const v4 = await checkCustomHost('http://8.8.8.8/v1/', EMPTY, NO_DNS);
    assert.equal(v4.hostname, '8.8.8.8');
    assert.equal(v4.pathname, '/v1');
    const v6 = await checkCustomHost('https://[2606:4700::1111]:8443/api', EMPTY, NO_DNS);
    assert.equal(v6.hostname, '[2606:4700::1111]');
    assert.equal(v6.port, '8443');
    assert.equal(v6.pathname, '/api');
  });
});

describe('checkCustomHost: URL shape', () => {
  for (const raw of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com:70/_x', 'ws://example.com/', 'javascript:alert(1)']) {
    it(`rejects scheme of ${raw}`, async () => {
      await rejectsWith(checkCustomHost(raw, EMPTY, NO_DNS), 'invalid_custom_host');
    });
  }

  for (const raw of ['http://user:pass@example.com/', 'http://user@example.com/', 'https://:secret@example.com/']) {
    it(`rejects credentials in ${raw}`, async () => {
      await rejectsWith(checkCustomHost(raw, EMPTY, NO_DNS), 'invalid_custom_host');
    });
  }

  for (const raw of ['', '   ', 'example.com', '/v1/chat', 'http://', 'http://exa mple.com/', 'http://[::1/', 'http://[fe80::1%25eth0]/', 'http://1.2.3.4.5/', `http://example.com/${'a'.repeat(3000)}`]) {
    it(`rejects malformed ${JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}...` : raw)}`, async () => {
      await rejectsWith(checkCustomHost(raw, EMPTY, NO_DNS), 'invalid_custom_host');
    });
  }

  it('strips trailing slashes from the pathname and keeps the rest', async () => {
    const lookup = fakeLookup({ 'api.example.com': ['93.184.216.34'] });
    const url = await checkCustomHost('https://API.Example.com:444/openai/v1//', EMPTY, lookup);
    assert.equal(url.href, 'https://api.example.com:444/openai/v1');
    assert.equal(url.pathname, '/openai/v1');
    const root = await checkCustomHost('https://api.example.com', EMPTY, lookup);
    assert.equal(root.origin, 'https://api.example.com');
    assert.equal(root.pathname, '/');
  });
});

describe('checkCustomHost: DNS names', () => {
  it('resolves names and accepts public answers', async () => {
    const lookup = fakeLookup({ 'api.example.com': ['93.184.216.34', '2606:4700::1111'] });
    const url = await checkCustomHost('https://api.example.com/v1', EMPTY, lookup);
    assert.equal(url.hostname, 'api.example.com');
    assert.deepEqual(lookup.calls, ['api.example.com']);
  });

  it('blocks a name that resolves to loopback', async () => {
    const lookup = fakeLookup({ 'evil.example.com': ['127.0.0.1'] });
    const err = await rejectsWith(checkCustomHost('http://evil.example.com/', EMPTY, lookup), 'custom_host_blocked');
    assert.match(err.message, /loopback/);
    assert.doesNotMatch(err.message, /127\.0\.0\.1/, 'the resolved internal address is not echoed to the client');
  });

  it('blocks a name with one public and one private answer', async () => {
    const lookup = fakeLookup({ 'mixed.example.com': ['93.184.216.34', '10.0.0.7'] });
    await rejectsWith(checkCustomHost('http://mixed.example.com/', EMPTY, lookup), 'custom_host_blocked');
    const lookup6 = fakeLookup({ 'mixed6.example.com': ['2606:4700::1111', 'fd12::1'] });
    await rejectsWith(checkCustomHost('http://mixed6.example.com/', EMPTY, lookup6), 'custom_host_blocked');
  });

  it('blocks a name resolving to cloud metadata through an IPv4-mapped answer', async () => {
    const lookup = fakeLookup({ 'meta.example.com': ['::ffff:169.254.169.254'] });
    await rejectsWith(checkCustomHost('http://meta.example.com/', EMPTY, lookup), 'custom_host_blocked');
  });

  it('reports unresolvable names', async () => {
    await rejectsWith(checkCustomHost('http://nope.example.com/', EMPTY, fakeLookup({})), 'custom_host_unresolvable');
    await rejectsWith(checkCustomHost('http://empty.example.com/', EMPTY, fakeLookup({ 'empty.example.com': [] })), 'custom_host_unresolvable');
  });

  it('blocks localhost through the real system resolver', async () => {
    const addresses = await systemLookupAll('localhost');
    assert.ok(addresses.length > 0);
    await rejectsWith(checkCustomHost('http://localhost:8080/v1', EMPTY), 'custom_host_blocked'); // default lookup
    await rejectsWith(checkCustomHost('http://localhost./', EMPTY, systemLookupAll), 'custom_host_blocked');
  });
});

describe('allowlist', () => {
  it('parses hostnames, IPs and CIDRs, skipping empty entries', () => {
    const allowlist = parseAllowlist(['127.0.0.1', ' localhost ', '', '10.0.0.0/8', '::1', 'LLM.Internal.', '[fd00::1]', 'fd12::/16']);
    assert.deepEqual([...allowlist.hosts].sort(), ['llm.internal', 'localhost']);
    assert.deepEqual(
      allowlist.ranges.map(([addr, bits]) => `${addr.toString()}/${bits}`),
      ['127.0.0.1/32', '10.0.0.0/8', '::1/128', 'fd00::1/128', 'fd12::/16'],
    );
  });

  for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/x', '10.0.0/8', 'not a host', '*.example.com', 'http://x', '0x7f.1', '127.1', 'fe80::zz', 'exa_mple..com', '/8']) {
    it(`throws on malformed entry ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseAllowlist(['localhost', bad]), /GATEWAY_CUSTOM_HOST_ALLOWLIST/);
    });
  }

  it('isAllowlisted matches names, literals and resolved addresses', () => {
    const allowlist = parseAllowlist(['localhost', '127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    assert.equal(isAllowlisted(allowlist, 'LOCALHOST.'), true);
    assert.equal(isAllowlisted(allowlist, 'other.example'), false);
    assert.equal(isAllowlisted(allowlist, '127.0.0.1'), true);
    assert.equal(isAllowlisted(allowlist, 'db.example', '10.9.8.7'), true);
    assert.equal(isAllowlisted(allowlist, 'db.example', '::ffff:10.9.8.7'), true);
    assert.equal(isAllowlisted(allowlist, 'db.example', '11.0.0.1'), false);
    assert.equal(isAllowlisted(allowlist, '[fd00::5]'), true);
    assert.equal(isAllowlisted(allowlist, 'x.example', 'fe80::1'), false);
    assert.equal(isAllowlisted(allowlist, '127.0.0.2'), false);
  });

  it('re-opens a hostname, without changing anything else', async () => {
    const allowlist = parseAllowlist(['localhost', 'llm.internal']);
    const url = await checkCustomHost('http://localhost:11434/v1/', allowlist);
    assert.equal(url.href, 'http://localhost:11434/v1');
    await checkCustomHost('http://LLM.internal/', allowlist, fakeLookup({ 'llm.internal': ['10.1.1.1'] }));
    await rejectsWith(checkCustomHost('http://127.0.0.1/', allowlist, NO_DNS), 'custom_host_blocked');
    await rejectsWith(checkCustomHost('http://other.internal/', allowlist, fakeLookup({ 'other.internal': ['10.1.1.1'] })), 'custom_host_blocked');
  });

  it('re-opens an IP address', async () => {
    const allowlist = parseAllowlist(['127.0.0.1', '::1']);
    await checkCustomHost('http://127.0.0.1:8000/', allowlist, NO_DNS);
    await checkCustomHost('http://[::1]:8000/', allowlist, NO_DNS);
    await checkCustomHost('http://[::ffff:127.0.0.1]/', allowlist, NO_DNS);
    await checkCustomHost('http://loop.example/', allowlist, fakeLookup({ 'loop.example': ['127.0.0.1', '::1'] }));
    await rejectsWith(checkCustomHost('http://127.0.0.2/', allowlist, NO_DNS), 'custom_host_blocked');
    await rejectsWith(
      checkCustomHost('http://loop.example/', allowlist, fakeLookup({ 'loop.example': ['127.0.0.1', '10.0.0.1'] })),
      'custom_host_blocked',
    );
  });

  it('re-opens an IPv4 CIDR', async () => {
    const allowlist = parseAllowlist(['10.0.0.0/8']);
    await checkCustomHost('http://10.20.30.40/', allowlist, NO_DNS);
    await checkCustomHost('http://svc.internal/', allowlist, fakeLookup({ 'svc.internal': ['10.0.0.9'] }));
    await rejectsWith(checkCustomHost('http://172.16.0.1/', allowlist, NO_DNS), 'custom_host_blocked');
    await rejectsWith(checkCustomHost('http://169.254.169.254/', allowlist, NO_DNS), 'custom_host_blocked');
  });

  it('re-opens an IPv6 CIDR', async () => {
    const allowlist = parseAllowlist(['fd00:1234::/32']);
    await checkCustomHost('http://[fd00:1234::5]/', allowlist, NO_DNS);
    await checkCustomHost('http://svc6.internal/', allowlist, fakeLookup({ 'svc6.internal': ['fd00:1234:1::1'] }));
    await rejectsWith(checkCustomHost('http://[fd00:1235::5]/', allowlist, NO_DNS), 'custom_host_blocked');
    await rejectsWith(checkCustomHost('http://[::1]/', allowlist, NO_DNS), 'custom_host_blocked');
  });
});

describe('guardedLookup', () => {
  type Result = { err: NodeJS.ErrnoException | null; args: unknown[] };
  function call(lookup: ReturnType<typeof guardedLookup>, hostname: string, options?: unknown): Promise<Result> {
    return new Promise((resolve) => {
      const cb = (err: NodeJS.ErrnoException | null, ...args: unknown[]) => resolve({ err, args });
      if (options === undefined) (lookup as unknown as (h: string, cb: unknown) => void)(hostname, cb);
      else lookup(hostname, options as object, cb);
    });
  }

  it('fails a connection whose name resolves to loopback (real resolver)', async () => {
    for (const options of [{}, { all: true }, 4, undefined]) {
      const { err, args } = await call(guardedLookup(EMPTY), 'localhost', options);
      assert.ok(err, `expected an error for options ${JSON.stringify(options)}`);
      assert.equal(err.code, 'ECUSTOMHOSTBLOCKED');
      assert.equal(CUSTOM_HOST_BLOCKED_CODE, 'ECUSTOMHOSTBLOCKED');
      assert.match(err.message, /loopback/);
      assert.deepEqual(args, []);
    }
  });

  it('passes an allowlisted name, in both callback shapes', async () => {
    const lookup = guardedLookup(parseAllowlist(['localhost']));
    const single = await call(lookup, 'localhost', { family: 4 });
    assert.equal(single.err, null);
    assert.deepEqual(single.args, ['127.0.0.1', 4]);
    const all = await call(lookup, 'localhost', { all: true, family: 4 });
    assert.equal(all.err, null);
    assert.deepEqual(all.args, [[{ address: '127.0.0.1', family: 4 }]]);
  });

  it('passes an allowlisted address range', async () => {
    const lookup = guardedLookup(parseAllowlist(['127.0.0.0/8', '::1']));
    const { err, args } = await call(lookup, 'localhost', { all: true });
    assert.equal(err, null);
    assert.ok(Array.isArray(args[0]) && args[0].length > 0);
  });

  it('checks every answer of an injected resolver (DNS rebinding)', async () => {
    let answers = [{ address: '93.184.216.34', family: 4 }];
    const resolver = (_h: string, opts: { all?: boolean }, cb: (err: NodeJS.ErrnoException | null, a: Array<{ address: string; family: number }>) => void) => {
      assert.equal(opts.all, true, 'the underlying resolver is always asked for all addresses');
      queueMicrotask(() => cb(null, answers));
    };
    const lookup = guardedLookup(EMPTY, resolver);
    const first = await call(lookup, 'rebind.example', {});
    assert.equal(first.err, null);
    assert.deepEqual(first.args, ['93.184.216.34', 4]);

    answers = [{ address: '93.184.216.34', family: 4 }, { address: '169.254.169.254', family: 4 }];
    const second = await call(lookup, 'rebind.example', { all: true });
    assert.equal(second.err?.code, 'ECUSTOMHOSTBLOCKED');

    answers = [];
    const none = await call(lookup, 'rebind.example', {});
    assert.equal(none.err?.code, 'ENOTFOUND');
  });

  it('passes resolver errors through', async () => {
    const failing = (_h: string, _o: unknown, cb: (err: NodeJS.ErrnoException | null, a: never[]) => void) =>
      cb(Object.assign(new Error('boom'), { code: 'EAI_AGAIN' }), []);
    const { err } = await call(guardedLookup(EMPTY, failing), 'x.example', {});
    assert.equal(err?.code, 'EAI_AGAIN');
  });

  describe('as undici connect.lookup', () => {
    let server: http.Server;
    let port = 0;
    before(async () => {
      server = http.createServer((_req, res) => res.end('ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('refuses to connect to a name that resolves to loopback', async () => {
      const dispatcher = new Agent({ connect: { lookup: guardedLookup(EMPTY) } });
      try {
        let caught: unknown;
        try {
          await request(`http://localhost:${port}/`, { dispatcher });
        } catch (err) {
          caught = err;
        }
        assert.ok(caught instanceof Error, 'the request must fail');
        const code = (caught as NodeJS.ErrnoException).code ?? ((caught as Error).cause as NodeJS.ErrnoException | undefined)?.code;
        assert.equal(code, 'ECUSTOMHOSTBLOCKED');
      } finally {
        await dispatcher.close();
      }
    });

    it('connects when the name is allowlisted', async () => {
      const dispatcher = new Agent({ connect: { lookup: guardedLookup(parseAllowlist(['localhost'])) } });
      try {
        const res = await request(`http://localhost:${port}/`, { dispatcher });
        assert.equal(res.statusCode, 200);
        assert.equal(await res.body.text(), 'ok');
      } finally {
        await dispatcher.close();
      }
    });
  });
});
