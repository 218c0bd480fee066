/**
 * POST /v1/messages/count_tokens to Claude on Vertex AI: the publisher's fixed `count-tokens` model answers a
 * rawPredict with the client's Messages body, which (unlike rawPredict to a Claude model) keeps `model`, since the
 * URL does not name it; `anthropic_version: vertex-2023-10-16` joins as for any Claude call on Vertex. The answer
 * is Anthropic's own `{ "input_tokens": n }`, sent back as it came. Only Claude counts here: Gemini's countTokens
 * takes another body and answers another shape, so any other model is a 400.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/count-tokens
 */
import { invalidParam } from '../../core/errors.ts';
import type { RouteHandler } from '../shared/define-adapter.ts';
import { recordOf } from '../shared/json.ts';
import { VERTEX_ANTHROPIC_VERSION } from './claude.ts';
import { checkedModel, isClaude, locationBase } from './endpoints.ts';

export const claudeCountTokensRoute: RouteHandler = {
  request(call, target) {
    const body = recordOf(call.body);
    const model = checkedModel(body.model);
    if (!isClaude(model)) {
      throw invalidParam('model', `Vertex AI counts Messages tokens for Claude models only; "${model}" is not one.`, 'unsupported_route');
    }
    const url = `${locationBase(target)}/publishers/anthropic/models/count-tokens:rawPredict`;
    return { url, body: { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body }, warnings: [] };
  },
};
