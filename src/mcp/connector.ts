/**
 * Connections to upstream MCP servers: an SDK `Client` over the SDK's Streamable HTTP client transport, with the
 * integration's stored headers injected and every byte sent through undici on a dispatcher whose DNS answers pass
 * the SSRF guard. The URL is checked again before each connection (`checkCustomHost`), and `guardedLookup` refuses an
 * address that changed since (DNS rebinding); redirects are refused, never chased.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { GatewayError, invalidParam } from '../core/errors.ts';
import { checkCustomHost, guardedLookup, type Allowlist, type LookupAll } from '../upstream/ssrf-guard.ts';

export const GATEWAY_CLIENT_INFO = { name: 'ai-gateway-mcp', version: '1.0.0' };
/** a tool may run for minutes; the SDK's 60 s default would cut a legitimate long call */
export const MCP_REQUEST_TIMEOUT_MS = 300_000;
const CONNECT_TIMEOUT_MS = 15_000;

export interface McpTarget {
  url: string;
  /** header name -> value, already opened; sent on every request to the upstream */
  headers: Readonly<Record<string, string>>;
}

export interface McpConnection {
  client: Client;
  /** the protocol version agreed in `initialize` */
  readonly protocolVersion: string | undefined;
  /** ends the upstream session (DELETE when it issued one) and the client; never throws */
  close(): Promise<void>;
}

export interface McpConnector {
  /** throws a GatewayError (400, param `url`) when the URL fails the SSRF rules; the SDK's errors otherwise */
  connect(target: McpTarget): Promise<McpConnection>;
  close(): Promise<void>;
}

export interface McpConnectorOptions {
  allowlist: Allowlist;
  /** DNS for the pre-connect check (tests inject one); the system resolver otherwise */
  lookup?: LookupAll | undefined;
}

type RawLookup = NonNullable<Parameters<typeof guardedLookup>[1]>;

function rawLookupOf(lookup: LookupAll): RawLookup {
  return (hostname, _options, callback) => {
    lookup(hostname).then(
      (addresses) => callback(null, addresses),
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/**
 * The SDK (and the zod schemas it carries: ~30 MB resident, ~150 ms) is loaded on the first connection, not at
 * start-up: a gateway that never talks to an MCP server never holds it.
 */
let clientSdk: Promise<{ Client: typeof Client; StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport }> | undefined;
function loadClientSdk() {
  clientSdk ??= Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]).then(
    ([client, transport]) => ({ Client: client.Client, StreamableHTTPClientTransport: transport.StreamableHTTPClientTransport }),
  );
  return clientSdk;
}

export function createMcpConnector(options: McpConnectorOptions): McpConnector {
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    headersTimeout: MCP_REQUEST_TIMEOUT_MS,
    bodyTimeout: MCP_REQUEST_TIMEOUT_MS,
    connect: { lookup: guardedLookup(options.allowlist, options.lookup ? rawLookupOf(options.lookup) : undefined) },
  });
  const guardedFetch: FetchLike = (url, init) =>
    undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent, redirect: 'error' }) as unknown as Promise<Response>;

  return {
    async connect(target) {
      try {
        await checkCustomHost(target.url, options.allowlist, options.lookup);
      } catch (error) {
        if (error instanceof GatewayError) throw invalidParam('url', error.message.replace('custom host', 'MCP server URL'), error.code ?? 'custom_host_blocked');
        throw error;
      }
      const { Client, StreamableHTTPClientTransport } = await loadClientSdk();
      const transport = new StreamableHTTPClientTransport(new URL(target.url), {
        fetch: guardedFetch,
        requestInit: { headers: { ...target.headers } },
      });
      const client = new Client(GATEWAY_CLIENT_INFO, { capabilities: {} });
      await client.connect(transport, { signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS), timeout: CONNECT_TIMEOUT_MS });
      return {
        client,
        get protocolVersion() {
          return transport.protocolVersion;
        },
        async close() {
          if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => {});
          await client.close().catch(() => {});
        },
      };
    },
    close: () => agent.close(),
  };
}
