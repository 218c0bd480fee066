/** Which provider response headers reach the client: hop-by-hop, cookies, lengths and x-gateway-* never do. */
const DROP_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'set-cookie',
  'content-length',
]);

export function safeResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  // for...in, not Object.entries: no [name, value] array per header on every answer
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || DROP_RESPONSE_HEADERS.has(name) || name.startsWith('x-gateway-')) continue;
    out[name] = value;
  }
  return out;
}
