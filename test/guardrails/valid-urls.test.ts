import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createValidUrlsCheck, findUrls, parseHttpUrl, type HostResolver } from '../../src/guardrails/checks/urls.ts';
import { makeContext, makeRegistry, runOne } from './helpers.ts';

/** Resolves the names in `known`; every other name fails like NXDOMAIN. Records what was asked. */
function fakeResolver(known: string[]): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver: HostResolver = async (hostname) => {
    asked.push(hostname);
    if (!known.includes(hostname)) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return { address: '93.184.216.34', family: 4 };
  };
  return Object.assign(resolver, { asked });
}

describe('finding and parsing URLs', () => {
  it('strips sentence punctuation and unbalanced closing brackets', () => {
    assert.deepEqual(findUrls('See https://example.com/a. Or (https://example.org/b), and "http://x.io/c?d=1".'), [
      'https://example.com/a',
      'https://example.org/b',
      'http://x.io/c?d=1',
    ]);
    assert.deepEqual(findUrls('Wiki: https://en.wikipedia.org/wiki/Foo_(bar)'), ['https://en.wikipedia.org/wiki/Foo_(bar)']);
  });

  it('accepts http(s) with a dotted DNS name, an IP literal or localhost', () => {
    for (const good of ['https://example.com', 'http://sub.example.co.uk:8080/p?q#f', 'http://127.0.0.1:3000', 'http://[::1]/', 'http://localhost:8080', 'https://xn--bcher-kva.example']) {
      assert.ok(parseHttpUrl(good), good);
    }
    for (const bad of ['ftp://example.com', 'https://example', 'https://-bad-.com', 'https://exa_mple.com', 'http://example.c0m', 'https://ex..ample.com', 'javascript://x.com']) {
      assert.equal(parseHttpUrl(bad), null, bad);
    }
  });
});

describe('default.validUrls', () => {
  const registry = makeRegistry({ hostResolver: fakeResolver(['example.com']) });

  it('passes well-formed http(s) URLs, fails any other scheme or broken host; not inverts', async () => {
    const good = 'Read https://example.com/docs and http://api.example.org/v1.';
    const bad = 'Read https://example.com and ftp://files.example.com/x';
    assert.equal((await runOne(registry, 'default.validUrls', {}, { text: good })).verdict, true);
    const failed = await runOne(registry, 'default.validUrls', {}, { text: bad });
    assert.equal(failed.verdict, false);
    assert.match(failed.explanation, /ftp:\/\/files\.example\.com\/x/);
    assert.equal((await runOne(registry, 'default.validUrls', { not: true }, { text: good })).verdict, false);
    assert.equal((await runOne(registry, 'default.validUrls', { not: true }, { text: bad })).verdict, true);
  });

  it('passes a text without URLs', async () => {
    const verdict = await runOne(registry, 'default.validUrls', {}, { text: 'no links here' });
    assert.equal(verdict.verdict, true);
    assert.equal(verdict.explanation, 'The text contains no URLs.');
  });

  it('with onlyDNS, fails URLs whose host does not resolve, and skips IP literals', async () => {
    const resolver = fakeResolver(['example.com']);
    const local = makeRegistry({ hostResolver: resolver });
    const text = 'https://example.com/a https://example.com/b https://nx.example.net http://93.184.216.34/';
    const verdict = await runOne(local, 'default.validUrls', { onlyDNS: true }, { text });
    assert.equal(verdict.verdict, false);
    assert.deepEqual((verdict.data as { invalid: string[] }).invalid, ['https://nx.example.net']);
    assert.deepEqual(resolver.asked.sort(), ['example.com', 'nx.example.net']); // one lookup per distinct host
    const dnsOk = await runOne(local, 'default.validUrls', { onlyDNS: true }, { text: 'https://example.com' });
    assert.equal(dnsOk.verdict, true);
  });

  it('with onlyDNS, a lookup slower than the timeout fails the URL', async () => {
    const never: HostResolver = () => new Promise(() => undefined);
    const check = createValidUrlsCheck({ resolver: never, dnsTimeoutMs: 50 }).bind({ onlyDNS: true }, 'parameters');
    const started = Date.now();
    const result = await check(makeContext({ text: 'https://slow.example.com' }), {});
    assert.equal(result.verdict, false);
    assert.ok(Date.now() - started < 1000);
  });

  it('with onlyDNS, an aborted run stops waiting', async () => {
    const never: HostResolver = () => new Promise(() => undefined);
    const check = createValidUrlsCheck({ resolver: never, dnsTimeoutMs: 10_000 }).bind({ onlyDNS: true }, 'parameters');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const result = await check(makeContext({ text: 'https://slow.example.com' }), { signal: controller.signal });
    assert.equal(result.verdict, false);
  });
});
