/**
 * POST /logs: custom logs (api-surface §3.21 CustomLog), requests made elsewhere and reported to the gateway, stored
 * as request_logs rows with `is_custom`. They land in the caller's workspace (an admin key's: the default one), under
 * the route `custom`. Bodies are cut at the log's body cap (and marked); header values named sensitive are hashed.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { insertRequestLogs, type NewRequestLogRow } from '../../storage/repositories/request-logs.ts';
import { capText, DEFAULT_BODY_CAP } from '../../logging/log-bodies.ts';
import { maskCustomLogHeaders } from './header-masking.ts';
import type { CustomLogInput } from './inputs.ts';

/** Custom logs in one call. */
export const MAX_CUSTOM_LOGS = 100;

/** A body as JSON text, cut at the request log's byte cap (what is past it is dropped, and the row says so). */
export function capBody(body: unknown, cap = DEFAULT_BODY_CAP): { text: string; truncated: boolean } {
  return capText(JSON.stringify(body) ?? 'null', cap);
}

function stringField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : undefined;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    const query = url.indexOf('?');
    return query >= 0 ? url.slice(0, query) : url;
  }
}

export interface CustomLogContext {
  principal: Principal;
  now: Date;
  /** ORGANISATION_HEADERS_TO_MASK */
  headersToMask: readonly string[];
  /** the names the POST's own x-gateway-sensitive-headers lists */
  callSensitiveHeaders: readonly string[];
}

export function customLogRow(log: CustomLogInput, context: CustomLogContext): NewRequestLogRow {
  const { principal } = context;
  const requestHeaders = log.request.headers ?? {};
  const responseHeaders = log.response.headers ?? {};
  const headers = maskCustomLogHeaders(requestHeaders, responseHeaders, [...context.headersToMask, ...context.callSensitiveHeaders]);
  const requestBody = capBody(log.request.body);
  const responseBody = capBody(log.response.body);
  const metadata = log.metadata ?? {};
  const status = log.response.status ?? 200;
  const model = stringField(log.request.body, 'model') ?? stringField(log.response.body, 'model');
  const provider = stringField(log.request.body, 'provider') ?? headers.gateway['x-gateway-provider'] ?? stringField(log.response.body, 'provider');
  const responseTime = log.response.response_time ?? 0;
  const usage = typeof log.response.body.usage === 'object' && log.response.body.usage !== null ? (log.response.body.usage as Record<string, unknown>) : {};
  const tokens = (name: string) => (Number.isSafeInteger(usage[name]) && (usage[name] as number) >= 0 ? (usage[name] as number) : null);
  return {
    id: randomUUID(),
    organisationId: principal.organisationId,
    workspaceId: principal.workspaceId,
    apiKeyId: principal.kind === 'api_key' ? principal.keyId : null,
    userId: principal.userId,
    createdAt: context.now,
    traceId: metadata.trace_id ?? randomUUID(),
    spanId: metadata.span_id ?? null,
    spanName: metadata.span_name ?? null,
    route: 'custom',
    method: (log.request.method ?? 'POST').toUpperCase(),
    path: pathOf(log.request.url),
    requestUrl: log.request.url,
    provider: provider ?? null,
    model: model ?? null,
    status,
    isSuccess: status >= 200 && status < 300,
    responseTimeMs: responseTime,
    promptTokens: tokens('prompt_tokens'),
    completionTokens: tokens('completion_tokens'),
    totalTokens: tokens('total_tokens'),
    metadata,
    requestBody: requestBody.text,
    responseBody: responseBody.text,
    bodiesTruncated: requestBody.truncated || responseBody.truncated,
    requestHeaders: headers.request,
    gatewayHeaders: headers.gateway,
    responseHeaders: headers.response,
    isCustom: true,
    mode: 'single',
  };
}

/** Stores every log of the call in one INSERT (in the caller's transaction, with its audit record). */
export async function insertCustomLogs(db: Db, logs: readonly CustomLogInput[], context: CustomLogContext): Promise<number> {
  const rows = logs.map((log) => customLogRow(log, context));
  await insertRequestLogs(db, rows);
  return rows.length;
}
