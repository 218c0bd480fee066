/**
 * The floor for a Node proxy: node:http server + one undici Pool to the upstream. It does what any real proxy
 * must (read the body, JSON.parse + JSON.stringify it) and nothing else, and pipes status, content-type and body
 * back, streaming included. Prints {"port":N} once listening on 127.0.0.1.
 * Run: node --import tsx bench/bare-proxy.ts http://127.0.0.1:<mockPort>   (or UPSTREAM_URL=...)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';
import { announcePort, exitWithParent } from './shared.ts';

const upstream = process.env.UPSTREAM_URL ?? process.argv[2];
if (!upstream) throw new Error('bare-proxy: pass the upstream origin as UPSTREAM_URL or the first argument');
const pool = new Pool(upstream, { keepAliveTimeout: 60_000 });

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const server = http.createServer(async (req, res) => {
  try {
    const body = JSON.stringify(JSON.parse(await readBody(req)));
    const up = await pool.request({
      method: 'POST',
      path: req.url ?? '/',
      headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
      body,
    });
    res.writeHead(up.statusCode, { 'content-type': up.headers['content-type'] ?? 'application/json' });
    await pipeline(up.body, res);
  } catch (err) {
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `bare-proxy: ${(err as Error).message}`, type: 'upstream_error' } }));
  }
});
server.keepAliveTimeout = 60_000;

server.listen(Number(process.env.PROXY_PORT ?? 0), '127.0.0.1', () => {
  announcePort((server.address() as AddressInfo).port);
});
exitWithParent(() => {
  server.close();
  server.closeAllConnections();
  void pool.close();
});
