/** Prompt execution on the data plane (src/http/routes/prompt-completions.ts). */
import { ref } from './components.ts';
import { GATEWAY_HEADERS, pathParameter } from './parameters.ts';
import { BAD_INPUT, INFERENCE_HEADERS, NO_KEY, NO_SCOPE, errors, inferenceErrors, json } from './responses.ts';
import type { Paths } from './types.ts';

const TAG = 'prompts';
const ADDRESS = pathParameter(
  'promptId',
  'the prompt\'s id or slug, optionally `@latest`, `@<version number>` or `@<label>` (default: its default version)',
  { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,255}(@[^@\\s/]{1,255})?$' },
);
const VARIABLES = 'Variables fill the template (mustache, no HTML escaping); a variable used outside any section is required, and a missing one is a 400 naming `variables.<name>`. Top-level fields other than variables, stream and hyperparameters are model parameters like hyperparameters\' (which win).';

export function promptRunPaths(): Paths {
  return {
    '/prompts/{promptId}/render': {
      post: {
        operationId: 'createPromptRender',
        summary: 'Render a prompt: the chat request it makes, not sent',
        description: `${VARIABLES} Scope: \`prompts.render\`.`,
        tags: [TAG],
        parameters: [ADDRESS],
        requestBody: { required: true, content: { 'application/json': { schema: ref('RunPromptRequest') } } },
        responses: {
          '200': json('the filled-in request', ref('PromptRender')),
          ...errors({ 400: BAD_INPUT, 401: NO_KEY, 403: NO_SCOPE, 404: 'the prompt or version is not found, or not visible to the caller' }),
        },
      },
    },
    '/prompts/{promptId}/completions': {
      post: {
        operationId: 'createPromptCompletion',
        summary: 'Run a prompt: its rendered request through the chat completions pipeline',
        description: `${VARIABLES} The answer is exactly POST /chat/completions': the bare chat completion (not the reference's {status, headers, body} wrapper), or its event stream with stream: true. The provider is the prompt's virtual_key unless x-gateway-* headers name one. Scope: \`completions.write\`.`,
        tags: [TAG],
        parameters: [ADDRESS, ...GATEWAY_HEADERS],
        requestBody: { required: true, content: { 'application/json': { schema: ref('RunPromptRequest') } } },
        responses: {
          '200': {
            description: 'the chat completion; a stream of server-sent events when `stream` is true',
            headers: INFERENCE_HEADERS,
            content: {
              'application/json': { schema: { type: 'object', description: 'a chat completion' } },
              'text/event-stream': { schema: { type: 'string', description: 'server-sent events ending with `data: [DONE]`' } },
            },
          },
          ...inferenceErrors(),
          ...errors({ 403: NO_SCOPE, 404: 'the prompt or version is not found, or not visible to the caller' }),
        },
      },
    },
  };
}
