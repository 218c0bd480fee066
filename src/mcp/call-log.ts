/**
 * The request log of the MCP gateway: one row per JSON-RPC request a client sends (notifications have no answer
 * and no row), written when its response leaves, like an inference request's. The row's route and mode are `mcp`,
 * its provider `mcp`, its `provider_slug` the MCP server's slug and its model the tool or prompt name (or the
 * resource URI); its metadata carries `mcp_server_id`, `mcp_method` and, for a named capability, `mcp_capability`.
 * Its status says how the call went: 200 answered (a tool's `isError` result is not a success), 400 malformed, 403 refused by the allow-list, 404 unknown
 * method, 502 the upstream failed or answered an error, 499 the client went away first.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../core/context.ts';
import { CLIENT_CLOSED_STATUS, logRow } from '../logging/log-row.ts';
import type { RequestLogWriter } from '../logging/request-log.ts';
import { newRequestRecord } from '../logging/request-record.ts';
import { DENIED } from './denied.ts';

export interface McpLogDeps {
  writer: RequestLogWriter;
  now: () => number;
  newId: () => string;
  headersToMask: readonly string[];
  bodyCap: number;
}

export interface McpCallContext {
  principal: Principal;
  server: { id: string; slug: string };
  path: string;
  headers: IncomingHttpHeaders;
  traceId: string;
}

interface PendingCall {
  startedAt: number;
  request: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function capabilityOf(request: Record<string, unknown>): string | undefined {
  const params = isObject(request.params) ? request.params : {};
  const named = params.name ?? params.uri;
  return typeof named === 'string' ? named : undefined;
}

function statusOf(response: Record<string, unknown>): number {
  if (!isObject(response.error)) return 200;
  const { code, data } = response.error;
  if (isObject(data) && data.gateway === DENIED) return 403;
  if (code === -32601) return 404;
  if (code === -32600 || code === -32602 || code === -32700) return 400;
  return 502;
}

function errorOf(response: Record<string, unknown>) {
  if (isObject(response.error)) {
    const message = typeof response.error.message === 'string' ? response.error.message : 'MCP error';
    return { message, type: 'mcp_error', code: String(response.error.code ?? '') };
  }
  if (isObject(response.result) && response.result.isError === true) return { message: 'The tool reported an error.', type: 'mcp_tool_error', code: null };
  return undefined;
}

/** Watches one exchange: `received` for what the client sent, `sent` for each message the gateway answers with. */
export function createMcpCallLog(context: McpCallContext, deps: McpLogDeps) {
  const pending = new Map<string, PendingCall>();

  function write(call: PendingCall, response: Record<string, unknown> | undefined): void {
    const record = newRequestRecord(call.startedAt, 'mcp');
    record.mode = 'mcp';
    record.provider = 'mcp';
    record.providerSlug = context.server.slug;
    record.model = capabilityOf(call.request);
    const status = response === undefined ? CLIENT_CLOSED_STATUS : statusOf(response);
    const error = response === undefined ? undefined : errorOf(response);
    if (error) record.error = error;
    if (response !== undefined) record.response = { kind: 'object', value: response };
    const row = logRow({
      id: deps.newId(),
      record,
      principal: context.principal,
      gateway: undefined,
      fallbackTraceId: context.traceId,
      method: 'POST',
      url: context.path,
      requestBody: call.request,
      rawBody: undefined,
      requestHeaders: context.headers,
      responseHeaders: {},
      headersToMask: deps.headersToMask,
      bodyCap: deps.bodyCap,
      status,
      completed: response !== undefined,
      headersSent: response !== undefined,
      endedAt: deps.now(),
    });
    // a tool's own error result (`isError`) is an answer, but not a success
    row.isSuccess = status === 200 && error === undefined;
    row.metadata = {
      mcp_server_id: context.server.id,
      mcp_method: String(call.request.method),
      ...(record.model !== undefined ? { mcp_capability: record.model } : {}),
    };
    deps.writer.write(row);
  }

  return {
    received(body: unknown): void {
      for (const message of Array.isArray(body) ? body : [body]) {
        if (!isObject(message) || typeof message.method !== 'string' || message.id === undefined) continue;
        pending.set(JSON.stringify(message.id), { startedAt: deps.now(), request: message });
      }
    },
    sent(message: JSONRPCMessage): void {
      if (!isObject(message) || !('id' in message) || 'method' in message) return;
      const key = JSON.stringify(message.id);
      const call = pending.get(key);
      if (!call) return;
      pending.delete(key);
      write(call, message as Record<string, unknown>);
    },
    /** the exchange is over: calls still without an answer were cut off by the client */
    closed(): void {
      for (const call of pending.values()) write(call, undefined);
      pending.clear();
    },
  };
}

export type McpCallLog = ReturnType<typeof createMcpCallLog>;
