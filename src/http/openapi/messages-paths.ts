/**
 * The Messages API inbound (src/http/routes/messages.ts): POST /v1/messages and /v1/messages/count_tokens, for
 * clients of the Anthropic SDKs. The request schemas are the ones the route validates with.
 */
import { ref, type SchemaName } from './components.ts';
import { GATEWAY_HEADERS } from './parameters.ts';
import { INFERENCE_HEADERS, inferenceErrors } from './responses.ts';
import type { Operation, Paths } from './types.ts';

const MESSAGE = { type: 'object', description: 'an Anthropic Message (the provider\'s own, or translated from the canonical chat answer)' };

const CREDENTIALS =
  'The gateway key comes in x-gateway-api-key or, when that header is absent, where the Anthropic SDKs put their key: `x-api-key`, else `Authorization: Bearer`. With x-gateway-api-key present, `x-api-key` is the provider credential like `Authorization: Bearer`. `anthropic-version` and `anthropic-beta` are forwarded to a provider that speaks the Messages API.';

function operation(operationId: string, summary: string, description: string, schema: SchemaName, streams: boolean): Operation {
  const content: Record<string, { schema: unknown }> = { 'application/json': { schema: MESSAGE } };
  if (streams) content['text/event-stream'] = { schema: { type: 'string', description: 'the Messages event stream: message_start, ping, content_block_start/delta/stop, message_delta, message_stop' } };
  return {
    operationId,
    summary,
    tags: ['inference'],
    description: `${description} ${CREDENTIALS}`,
    parameters: [...GATEWAY_HEADERS],
    requestBody: { required: true, content: { 'application/json': { schema: ref(schema) } } },
    responses: { '200': { description: streams ? 'the Message; the event stream when `stream` is true' : 'the count', headers: INFERENCE_HEADERS, content }, ...inferenceErrors() },
  } as Operation;
}

export function messagesPaths(): Paths {
  return {
    '/messages': {
      post: operation(
        'createMessage',
        'Create a message (Anthropic Messages API)',
        'A provider that speaks the Messages API gets the body as sent (cache_control, thinking and signatures untouched); any other is reached through the canonical chat form, and its answer comes back as a Message or as the Messages event stream. Routing configs, retries, the cache, guardrails, limits and the log apply as for chat completions.',
        'MessagesRequest',
        true,
      ),
    },
    '/messages/count_tokens': {
      post: operation(
        'countMessageTokens',
        'Count the tokens of a message (Anthropic Messages API)',
        'Counted by a provider that speaks the Messages API natively (Anthropic, Claude on Vertex AI and on Bedrock); any other provider or model answers 400 `unsupported_route`.',
        'CountTokensRequest',
        false,
      ),
    },
  };
}
