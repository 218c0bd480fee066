/**
 * A fake OpenAI-compatible upstream for the budget tests: chat completions (JSON, or SSE with the usage chunk when
 * `stream_options.include_usage` asks) whose reported usage the test chooses, and which can hold its answers until
 * the test releases them, so a burst of requests is in flight at once. Every request is counted; `arrivals` wakes
 * whoever waits for a count.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UsageUpstream {
  /** base URL for x-gateway-custom-host */
  baseUrl: string;
  /** the usage every answer reports from now on */
  usage: { prompt: number; completion: number };
  /** requests received */
  received: number;
  /** the size of the last request body received, in bytes (the gateway forwards an OpenAI body unchanged) */
  lastBodyBytes: number;
  /** held answers wait until release() */
  hold: boolean;
  release(): void;
  /** resolves once `received` reaches `count` */
  waitForRequests(count: number): Promise<void>;
  readonly arrivals: EventEmitter;
  close(): Promise<void>;
}

export async function startUsageUpstream(): Promise<UsageUpstream> {
  const arrivals = new EventEmitter();
  arrivals.setMaxListeners(0);
  const held: Array<() => void> = [];
  const state = { usage: { prompt: 5, completion: 2 }, received: 0, hold: false, lastBodyBytes: 0 };

  function answer(res: http.ServerResponse, body: Record<string, unknown>): void {
    const { prompt, completion } = state.usage;
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    const model = String(body.model ?? 'fake');
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (fields: Record<string, unknown>) => res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model, ...fields })}\n\n`);
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] });
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) chunk({ choices: [], usage });
      res.end('data: [DONE]\n\n');
      return;
    }
    const text = JSON.stringify({
      id: 'c', object: 'chat.completion', created: 1, model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, logprobs: null, finish_reason: 'stop' }],
      usage,
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => (raw += part));
    req.on('end', () => {
      state.received += 1;
      state.lastBodyBytes = Buffer.byteLength(raw);
      arrivals.emit('request', state.received);
      const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
      if (String(body.model).startsWith('error')) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'upstream failed', type: 'server_error', param: null, code: null } }));
        return;
      }
      if (state.hold) held.push(() => answer(res, body));
      else answer(res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const upstream: UsageUpstream = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get usage() {
      return state.usage;
    },
    set usage(value) {
      state.usage = value;
    },
    get received() {
      return state.received;
    },
    get lastBodyBytes() {
      return state.lastBodyBytes;
    },
    get hold() {
      return state.hold;
    },
    set hold(value) {
      state.hold = value;
    },
    release() {
      state.hold = false;
      for (const send of held.splice(0)) send();
    },
    waitForRequests(count) {
      return new Promise((resolve) => {
        if (state.received >= count) return resolve();
        const check = (seen: number) => {
          if (seen < count) return;
          arrivals.off('request', check);
          resolve();
        };
        arrivals.on('request', check);
      });
    },
    arrivals,
    close: () => new Promise<void>((resolve) => {
      for (const send of held.splice(0)) send();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  return upstream;
}
