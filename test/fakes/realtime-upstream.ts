/**
 * A fake OpenAI Realtime upstream on 127.0.0.1: a WebSocket server at /v1/realtime speaking the Realtime events
 * (https://platform.openai.com/docs/api-reference/realtime-server-events). It records every handshake (URL and
 * headers) and every frame it receives. On connect it sends `session.created`; on `response.create` it sends
 * `response.created`, two `response.output_text.delta` events and `response.done` with `response.usage` (the
 * counts taken from the request's `response.metadata.input_tokens` / `output_tokens`, 10 and 5 by default). A
 * binary frame is echoed back as binary; `test.close` closes with the code and reason it names. The model
 * `refuse-<status>` is refused at the handshake with that status and an OpenAI error body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface RealtimeHandshake {
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface RealtimeFrame {
  text: string | undefined;
  binary: Buffer | undefined;
}

export interface FakeRealtimeUpstream {
  /** http://127.0.0.1:<port>/v1: the custom host */
  baseUrl: string;
  handshakes: RealtimeHandshake[];
  /** frames received, in order, over every connection */
  frames: RealtimeFrame[];
  close(): Promise<void>;
}

function send(socket: WebSocket, event: Record<string, unknown>): void {
  socket.send(JSON.stringify(event));
}

function count(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function answer(socket: WebSocket, event: { response?: { metadata?: Record<string, unknown> } }, sequence: number): void {
  const id = `resp_${sequence}`;
  const input = count(event.response?.metadata?.input_tokens, 10);
  const output = count(event.response?.metadata?.output_tokens, 5);
  send(socket, { type: 'response.created', event_id: `event_${sequence}_0`, response: { id, object: 'realtime.response', status: 'in_progress', output: [] } });
  send(socket, { type: 'response.output_text.delta', event_id: `event_${sequence}_1`, response_id: id, item_id: 'item_1', output_index: 0, content_index: 0, delta: 'Hello' });
  send(socket, { type: 'response.output_text.delta', event_id: `event_${sequence}_2`, response_id: id, item_id: 'item_1', output_index: 0, content_index: 0, delta: ' there' });
  send(socket, {
    type: 'response.done',
    event_id: `event_${sequence}_3`,
    response: {
      id,
      object: 'realtime.response',
      status: 'completed',
      output: [{ id: 'item_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there' }] }],
      usage: {
        total_tokens: input + output,
        input_tokens: input,
        output_tokens: output,
        input_token_details: { cached_tokens: 0, text_tokens: input, audio_tokens: 0 },
        output_token_details: { text_tokens: output, audio_tokens: 0 },
      },
    },
  });
}

export async function startFakeRealtimeUpstream(): Promise<FakeRealtimeUpstream> {
  const handshakes: RealtimeHandshake[] = [];
  const frames: RealtimeFrame[] = [];
  const server = http.createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not a realtime socket"}}');
  });
  const wss = new WebSocketServer({ noServer: true });
  let sequence = 0;
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    handshakes.push({ url: request.url ?? '', headers: request.headers });
    const refused = /^refuse-(\d{3})$/.exec(url.searchParams.get('model') ?? '');
    if (url.pathname !== '/v1/realtime' || refused) {
      const status = refused ? Number(refused[1]) : 404;
      const body = JSON.stringify({ error: { message: `refused by the fake upstream (${status})`, type: 'invalid_request_error', code: 'fake_refusal' } });
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (client) => {
      send(client, { type: 'session.created', event_id: 'event_session', session: { id: 'sess_1', object: 'realtime.session', model: url.searchParams.get('model') } });
      client.on('message', (data, isBinary) => {
        const buffer = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
        if (isBinary) {
          frames.push({ text: undefined, binary: buffer });
          client.send(buffer, { binary: true });
          return;
        }
        const text = buffer.toString('utf8');
        frames.push({ text, binary: undefined });
        const event = JSON.parse(text) as { type?: string; code?: number; reason?: string; response?: { metadata?: Record<string, unknown> } };
        if (event.type === 'response.create') answer(client, event, (sequence += 1));
        if (event.type === 'test.close') client.close(event.code ?? 1000, event.reason ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    handshakes,
    frames,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
