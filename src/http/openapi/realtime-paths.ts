/** GET /v1/realtime (src/http/realtime/): the Realtime API's WebSocket, relayed to the provider's realtime socket. */
import { GATEWAY_HEADERS } from './parameters.ts';
import { errors, inferenceErrors } from './responses.ts';
import type { Operation, Paths } from './types.ts';

const DESCRIPTION = [
  'A WebSocket upgrade (status 101): the session is relayed frame by frame to the provider\'s realtime socket (OpenAI\'s `wss://api.openai.com/v1/realtime`),',
  'text and binary frames both ways, close codes passed on. The gateway key comes in x-gateway-api-key or, for browser clients, as the subprotocol',
  '`openai-insecure-api-key.<gateway key>` (with `realtime`); the provider is chosen as on every inference route (x-gateway-provider with `Authorization`,',
  'a custom host through the SSRF guard, or a saved provider `@slug` / virtual key with its stored credential). Rate limits count the session as one request',
  'when it opens and budgets reserve for it then; the session is one request-log row (route `realtime`) written when it closes, with its duration and the',
  'usage summed from the provider\'s `response.done` events, priced like any answer. A provider that refuses the handshake answers with its own status and body.',
  'Asked without an upgrade, the route answers 426.',
].join(' ');

export function realtimePaths(): Paths {
  const operation = {
    operationId: 'connectRealtime',
    summary: 'Realtime session (WebSocket)',
    tags: ['inference'],
    description: DESCRIPTION,
    parameters: [
      { name: 'model', in: 'query', required: true, description: 'the realtime model; other query parameters pass through unchanged', schema: { type: 'string', minLength: 1 } },
      ...GATEWAY_HEADERS,
    ],
    responses: {
      '101': { description: 'Switching Protocols: the WebSocket session, relayed to the provider' },
      ...errors({ 426: 'not a WebSocket upgrade request' }),
      ...inferenceErrors(),
    },
  } as Operation;
  return { '/realtime': { get: operation } };
}
