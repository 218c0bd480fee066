/**
 * A real MCP server on 127.0.0.1, built with the official SDK (McpServer over the Streamable HTTP transport, with
 * sessions, as most servers run): the upstream the MCP gateway tests talk to. It records every HTTP request it gets
 * (method and headers), and its tools show what reached it:
 * - `whoami` answers the SHA-256 fingerprint of the Authorization header it received (never the header itself), so a
 *   test proves the stored credential was injected without the credential ever travelling back;
 * - `add` adds two numbers; `delete_everything` exists to be switched off.
 * It also offers a prompt (`greeting`), a resource (`memo://readme`) and a resource template (`memo://notes/{name}`).
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface RecordedMcpRequest {
  method: string;
  headers: http.IncomingHttpHeaders;
  /** the JSON-RPC method(s) of a POST */
  rpc: string[];
}

export interface FakeMcpServer {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  requests: RecordedMcpRequest[];
  close(): Promise<void>;
}

export const fingerprint = (value: string): string => createHash('sha256').update(value).digest('hex');

function buildServer(): McpServer {
  const server = new McpServer({ name: 'fake-mcp', version: '1.2.3' }, { instructions: 'A fake server for tests.' });
  server.registerTool('whoami', { description: 'The fingerprint of the Authorization header this server received.' }, async (extra) => {
    const header = extra.requestInfo?.headers.authorization;
    const value = Array.isArray(header) ? header.join(',') : header;
    return { content: [{ type: 'text', text: value ? `sha256:${fingerprint(value)}` : 'no authorization header' }] };
  });
  server.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool('delete_everything', { description: 'A tool an administrator switches off.' }, async () => ({
    content: [{ type: 'text', text: 'everything deleted' }],
  }));
  server.registerPrompt('greeting', { description: 'Greets someone.', argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }],
  }));
  server.registerResource('readme', 'memo://readme', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'read me' }] }));
  server.registerResource('notes', new ResourceTemplate('memo://notes/{name}', { list: undefined }), { mimeType: 'text/plain' }, async (uri, { name }) => ({
    contents: [{ uri: uri.href, text: `note ${String(name)}` }],
  }));
  return server;
}

async function readJson(request: http.IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}

export async function startFakeMcpServer(): Promise<FakeMcpServer> {
  const requests: RecordedMcpRequest[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const httpServer = http.createServer((request, response) => {
    void (async () => {
      const body = request.method === 'POST' ? await readJson(request) : undefined;
      const messages = Array.isArray(body) ? body : body === undefined ? [] : [body];
      requests.push({ method: request.method ?? '', headers: request.headers, rpc: messages.map((message) => String((message as { method?: unknown }).method)) });
      const sessionId = request.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (!transport && request.method === 'POST' && messages.some((message) => isInitializeRequest(message))) {
        const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (id) => void sessions.set(id, fresh),
        });
        fresh.onclose = () => {
          if (fresh.sessionId) sessions.delete(fresh.sessionId);
        };
        await buildServer().connect(fresh);
        transport = fresh;
      }
      if (!transport) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null }));
        return;
      }
      await transport.handleRequest(request, response, body);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    async close() {
      for (const transport of sessions.values()) await transport.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
