/**
 * The Messages API to Claude on Bedrock, natively: InvokeModel (`/model/{id}/invoke`) and
 * InvokeModelWithResponseStream (`/model/{id}/invoke-with-response-stream`) with the client's Messages body, less
 * `model` (in the URL) and `stream` (the operation says it), plus `anthropic_version: "bedrock-2023-05-31"`; the
 * client's `anthropic-beta` header becomes the body's `anthropic_beta` list. The answer is the Message as Claude
 * wrote it; the stream is AWS event-stream, each `chunk` event's payload `{"bytes": "<base64 of one Messages
 * event>"}`, decoded here into those events (the transport frames them back as the Messages SSE stream).
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 */
import { badGateway } from '../../core/errors.ts';
import type { InferenceCall, StreamDecoder, UpstreamRequest } from '../contract.ts';
import { cloudMessagesBody } from '../anthropic/inbound/index.ts';
import type { RouteHandler } from '../shared/define-adapter.ts';
import { isRecord, recordOf } from '../shared/json.ts';
import { modelPath } from './endpoints.ts';
import { streamError } from './errors.ts';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
const EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';

/** Claude model ids, inference profiles included: `anthropic.claude-...`, `us.anthropic.claude-...`, their ARNs. */
export function isClaudeModel(model: unknown): boolean {
  return typeof model === 'string' && /(^|[.:/])anthropic\.claude-/.test(model);
}

export function isClaudeCall(call: InferenceCall): boolean {
  return isClaudeModel(recordOf(call.body).model);
}

function claudeStreamDecoder(): StreamDecoder {
  return {
    push(event) {
      if (event.event?.startsWith('exception:') || event.event?.startsWith('error:')) throw streamError(event.event, event.data);
      if (event.event !== 'chunk') return [];
      try {
        const payload = JSON.parse(event.data) as { bytes?: unknown };
        if (typeof payload.bytes !== 'string') return [];
        const message: unknown = JSON.parse(Buffer.from(payload.bytes, 'base64').toString('utf8'));
        return isRecord(message) ? [message] : [];
      } catch {
        throw badGateway('Bedrock sent a stream chunk that is not a Messages event.', 'stream_interrupted');
      }
    },
    end: () => [],
  };
}

export const claudeMessagesRoute: RouteHandler = {
  request(call, target) {
    const stream = recordOf(call.body).stream === true;
    const body = Buffer.from(JSON.stringify(cloudMessagesBody(call, BEDROCK_ANTHROPIC_VERSION, ['stream'])));
    const url = `${target.baseUrl}${modelPath(String(recordOf(call.body).model), stream ? 'invoke-with-response-stream' : 'invoke')}`;
    const headers: Record<string, string> = stream ? { accept: EVENT_STREAM_TYPE, 'x-amzn-bedrock-accept': 'application/json' } : { accept: 'application/json' };
    return { url, body, warnings: [], headers };
  },
  stream: (call) => (recordOf(call.body).stream === true ? claudeStreamDecoder() : undefined),
};

/**
 * Bedrock takes no Anthropic headers: before signing, the forwarded `anthropic-beta` of a Claude Messages body
 * moves into the body's `anthropic_beta`, and both protocol headers leave every request.
 */
export function withBetasInBody(request: UpstreamRequest): UpstreamRequest {
  const { 'anthropic-version': version, 'anthropic-beta': beta, ...headers } = request.headers;
  if (version === undefined && beta === undefined) return request;
  if (beta === undefined || request.body === undefined) return { ...request, headers };
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString());
  } catch {
    return { ...request, headers };
  }
  if (!isRecord(body) || body.anthropic_version !== BEDROCK_ANTHROPIC_VERSION) return { ...request, headers };
  const betas = beta.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const listed = Array.isArray(body.anthropic_beta) ? body.anthropic_beta : [];
  const merged = [...new Set([...listed, ...betas])];
  return { ...request, headers, body: Buffer.from(JSON.stringify({ ...body, anthropic_beta: merged })) };
}
