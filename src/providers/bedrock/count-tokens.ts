/**
 * POST /v1/messages/count_tokens to Claude on Bedrock, natively: the CountTokens operation
 * (`POST /model/{modelId}/count-tokens`) counts an InvokeModel body, sent base64-encoded as
 * `{"input": {"invokeModel": {"body": "<base64>"}}}`. That body is the one InvokeModel would get (claude-messages.ts):
 * the client's Messages body without `model`, with `anthropic_version: "bedrock-2023-05-31"` and the client's
 * `anthropic-beta` as `anthropic_beta`. Bedrock answers `{"inputTokens": n}`, written back as Anthropic's
 * `{"input_tokens": n}`. Only Claude counts here: any other model is a 400.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelTokensRequest.html
 */
import { badGateway, invalidParam } from '../../core/errors.ts';
import type { UpstreamRequest } from '../contract.ts';
import { cloudMessagesBody } from '../anthropic/inbound/index.ts';
import type { RouteHandler } from '../shared/define-adapter.ts';
import { isRecord, recordOf, type JsonRecord } from '../shared/json.ts';
import { BEDROCK_ANTHROPIC_VERSION, isClaudeModel, withBetasInBody } from './claude-messages.ts';
import { modelPath } from './endpoints.ts';

const OPERATION = '/count-tokens';

/**
 * Bedrock checks the counted body as an InvokeModel body, which needs `max_tokens`; count_tokens has none. The
 * value adds no input tokens; with thinking on it must exceed the budget, as InvokeModel requires.
 */
function withMaxTokens(body: JsonRecord): JsonRecord {
  if (body.max_tokens !== undefined) return body;
  const budget = recordOf(body.thinking).budget_tokens;
  return { ...body, max_tokens: typeof budget === 'number' ? budget + 1 : 1 };
}

/**
 * CountTokens takes foundation-model ids, not the cross-region inference profiles (`us.anthropic.claude-...`)
 * clients send to InvokeModel: the geography prefix goes, the model (and so its tokenizer) is the same.
 */
export function countingModelId(model: string): string {
  return model.replace(/^[a-z]+(-[a-z]+)*\.(?=anthropic\.claude-)/, '');
}

function wrapped(invokeBody: Buffer): Buffer {
  return Buffer.from(JSON.stringify({ input: { invokeModel: { body: invokeBody.toString('base64') } } }));
}

export const claudeCountTokensRoute: RouteHandler = {
  request(call, target) {
    const model = recordOf(call.body).model;
    if (typeof model !== 'string' || !isClaudeModel(model)) {
      throw invalidParam('model', `Bedrock counts Messages tokens for Claude models only; "${String(model)}" is not one.`, 'unsupported_route');
    }
    const invokeBody = Buffer.from(JSON.stringify(withMaxTokens(cloudMessagesBody(call, BEDROCK_ANTHROPIC_VERSION, ['stream']))));
    const url = `${target.baseUrl}${modelPath(countingModelId(model), 'count-tokens')}`;
    return { url, body: wrapped(invokeBody), warnings: [], headers: { accept: 'application/json' } };
  },
  response(json) {
    const inputTokens = recordOf(json).inputTokens;
    if (typeof inputTokens !== 'number') throw badGateway('Bedrock answered CountTokens without inputTokens.');
    return { input_tokens: inputTokens };
  },
};

/** The InvokeModel body inside a CountTokens request, when it is one. */
function countedBody(request: UpstreamRequest): Buffer | undefined {
  if (!new URL(request.url).pathname.endsWith(OPERATION) || request.body === undefined) return undefined;
  try {
    const body: unknown = JSON.parse(request.body.toString());
    const inner = recordOf(recordOf(recordOf(body).input).invokeModel).body;
    return isRecord(body) && typeof inner === 'string' ? Buffer.from(inner, 'base64') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * withBetasInBody for the InvokeModel body a CountTokens request carries: the forwarded `anthropic-beta` is counted
 * with the body it changes (betas such as tools or context management count tokens of their own). Runs before
 * withBetasInBody, and leaves it nothing to do on such a request.
 */
export function withBetasInCountedBody(request: UpstreamRequest): UpstreamRequest {
  const inner = countedBody(request);
  if (inner === undefined) return request;
  const moved = withBetasInBody({ ...request, body: inner });
  return moved.body === inner ? { ...moved, body: request.body } : { ...moved, body: wrapped(Buffer.from(moved.body!)) };
}
