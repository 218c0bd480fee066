/** Request-log rows built by hand, for the metrics and tracing observers' unit tests. */
import type { IncomingHttpHeaders } from 'node:http';
import type { FinishedRequest } from '../../src/logging/observer.ts';
import type { NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';

export const STARTED_AT = Date.UTC(2025, 0, 2, 3, 4, 5, 600);

export function row(fields: Partial<NewRequestLogRow> = {}): NewRequestLogRow {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    organisationId: '00000000-0000-4000-8000-000000000002',
    workspaceId: '00000000-0000-4000-8000-000000000003',
    apiKeyId: '00000000-0000-4000-8000-000000000004',
    userId: null,
    createdAt: new Date(STARTED_AT),
    traceId: 'trace-not-an-otel-id',
    route: 'chat',
    method: 'POST',
    path: '/v1/chat/completions',
    provider: 'fake-provider',
    model: 'model-a',
    status: 200,
    isSuccess: true,
    streamMode: false,
    responseTimeMs: 1500,
    cacheStatus: 'MISS',
    retryCount: 0,
    promptTokens: 11,
    completionTokens: 7,
    totalTokens: 18,
    cost: '0.000123000000',
    metadata: {},
    attempts: [],
    ...fields,
  };
}

export function finished(fields: Partial<NewRequestLogRow> = {}, headers: IncomingHttpHeaders = {}, finishReasons?: string[]): FinishedRequest {
  return { row: row(fields), headers, finishReasons, responseModel: undefined };
}
