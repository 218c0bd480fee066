/**
 * A small JSON fake upstream on 127.0.0.1 for the providers that answer JSON only (Voyage, Pinecone): it records
 * each request and asks a handler for the answer. A handler rejects a request that breaks its provider's contract by
 * throwing `Rejected`: the answer is then the provider's own error body with status 422 and the reason, so the test
 * that sent it fails with that reason. A model named error-<status> answers that status with the provider's error body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  json: Record<string, unknown>;
}

export interface FakeUpstream {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, body: Record<string, unknown>) => { status: number; body: unknown };

class Rejected extends Error {}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function check(condition: unknown, problem: string): asserts condition {
  if (!condition) throw new Rejected(problem);
}

export async function serveJson(handler: Handler, errorBody: (message: string, status: number) => unknown, basePath: string): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      let answer: { status: number; body: unknown };
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
        const json = isRecord(parsed) ? parsed : {};
        requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, json });
        const status = typeof json.model === 'string' ? /^error-(\d{3})$/.exec(json.model) : null;
        answer = status ? { status: Number(status[1]), body: errorBody(`fake error ${status[1]}`, Number(status[1])) } : handler(req, json);
      } catch (error) {
        answer = { status: 422, body: errorBody(error instanceof Error ? error.message : String(error), 422) };
      }
      const text = JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

