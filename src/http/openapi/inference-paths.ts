/**
 * The inference routes (src/http/routes/inference.ts, models.ts, proxy.ts): the four validated POSTs, the
 * Responses API, the model list, and the two pass-through wildcards.
 */
import { AI_SERVICES, MAX_LIMIT, SORT_FIELDS, SORT_ORDERS } from '../../catalog/catalog.ts';
import { INPUT_ITEMS_DEFAULT_LIMIT, INPUT_ITEMS_MAX_LIMIT, INPUT_ITEMS_ORDERS } from '../schemas/input-items-query.ts';
import { ref, type SchemaName } from './components.ts';
import { FETCH_INTEGRATED_MODELS, GATEWAY_HEADERS, pathParameter, queryParameter } from './parameters.ts';
import { INFERENCE_HEADERS, inferenceErrors, json } from './responses.ts';
import type { Method, Operation, Parameter, PathItem, Paths, Response } from './types.ts';
import { messagesPaths } from './messages-paths.ts';

const TAG = 'inference';
const PASS_THROUGH_METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];
const ANY_JSON = { type: 'object', description: 'the provider\'s answer, in the OpenAI shape' };

function answer(streams: boolean): Operation['responses'] {
  const content: Response['content'] = { 'application/json': { schema: ANY_JSON } };
  if (streams) content['text/event-stream'] = { schema: { type: 'string', description: 'server-sent events ending with `data: [DONE]`' } };
  const ok: Response = { description: streams ? 'the answer; a stream of server-sent events when `stream` is true' : 'the answer', headers: INFERENCE_HEADERS, content };
  return {
    '200': ok,
    '246': { ...ok, description: 'the answer, though an output guardrail without `deny` failed (verdicts in hook_results, x-gateway-guardrails: failed)' },
    ...inferenceErrors(),
  };
}

function forwarded(operationId: string, summary: string, extra: { parameters?: Parameter[]; body?: SchemaName; streams?: boolean; description?: string }): Operation {
  return {
    operationId,
    summary,
    tags: [TAG],
    ...(extra.description ? { description: extra.description } : {}),
    parameters: [...(extra.parameters ?? []), ...GATEWAY_HEADERS],
    ...(extra.body ? { requestBody: { required: true, content: { 'application/json': { schema: ref(extra.body) } } } } : {}),
    responses: answer(extra.streams ?? false),
  };
}

const RESPONSE_ID = pathParameter('response_id', 'the response id (the gateway\'s or the provider\'s)');

/** What src/responses/validate.ts checks; every other field is the provider's (or ignored over chat). */
const RESPONSES_REQUEST = {
  type: 'object',
  description: 'an OpenAI Responses API request',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1 },
    input: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }], description: 'a string, or input items (message, function_call, function_call_output, reasoning)' },
    instructions: { type: ['string', 'null'] },
    previous_response_id: { type: ['string', 'null'] },
    tools: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } },
    tool_choice: { anyOf: [{ type: 'string', enum: ['none', 'auto', 'required'] }, { type: 'object' }] },
    text: { type: 'object', properties: { format: { type: 'object', properties: { type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] } } } } },
    reasoning: { type: ['object', 'null'] },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    store: { type: ['boolean', 'null'], default: true },
    stream: { type: ['boolean', 'null'] },
    metadata: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
    user: { type: ['string', 'null'] },
    truncation: { type: ['string', 'null'], enum: ['auto', 'disabled', null] },
    include: { type: ['array', 'null'], items: { type: 'string' } },
  },
};

const modelsQuery = [
  queryParameter('provider', 'only this provider\'s models (catalog answers)'),
  queryParameter('ai_service', `only models of this service (catalog answers): ${AI_SERVICES.join(', ')}`),
  queryParameter('limit', 'at most this many models', { type: 'integer', minimum: 1, maximum: MAX_LIMIT }),
  queryParameter('offset', 'skip this many models', { type: 'integer', minimum: 0 }),
  queryParameter('sort', 'sort field', { type: 'string', enum: [...SORT_FIELDS], default: 'name' }),
  queryParameter('order', 'sort order', { type: 'string', enum: [...SORT_ORDERS], default: 'asc' }),
];

const inputItemsQuery = [
  queryParameter('limit', 'items per page', { type: 'integer', minimum: 1, maximum: INPUT_ITEMS_MAX_LIMIT, default: INPUT_ITEMS_DEFAULT_LIMIT }),
  queryParameter('order', 'item order (OpenAI\'s default: newest first)', { type: 'string', enum: [...INPUT_ITEMS_ORDERS], default: 'desc' }),
  queryParameter('after', 'list items after this item id'),
  queryParameter('before', 'list items before this item id'),
];

function passThrough(name: string, prefix: string, summary: string, description: string): PathItem {
  const item: PathItem = { description, 'x-gateway-wildcard-parameter': name };
  for (const method of PASS_THROUGH_METHODS) {
    item[method] = forwarded(`${prefix}${method[0]!.toUpperCase()}${method.slice(1)}`, summary, {
      parameters: [pathParameter(name, 'the rest of the path, several segments included, sent to the provider as given')],
      description,
    });
    item[method]!.requestBody = { required: false, description: 'sent to the provider untouched', content: { '*/*': { schema: {} } } };
  }
  return item;
}

export function inferencePaths(): Paths {
  return {
    '/chat/completions': { post: forwarded('createChatCompletion', 'Chat completion', { body: 'ChatCompletionRequest', streams: true }) },
    '/completions': { post: forwarded('createCompletion', 'Text completion (legacy)', { body: 'CompletionRequest', streams: true }) },
    '/embeddings': { post: forwarded('createEmbedding', 'Embeddings', { body: 'EmbeddingRequest' }) },
    '/rerank': {
      post: forwarded('createRerank', 'Rerank', { body: 'RerankRequest', description: 'One answer shape for every provider: `results` sorted by `relevance_score`.' }),
    },
    '/responses': {
      post: {
        ...forwarded('createResponse', 'Create a response (OpenAI Responses API)', {
          streams: true,
          description:
            'A provider that speaks the Responses API natively gets the request as sent. Any other provider that serves chat runs it over its chat API: input items and instructions, function tools and their outputs, reasoning items, `text.format`, and a stream of Responses events (`event:` lines, no `[DONE]`). Responses produced that way are kept by the gateway (30 days, per organisation): `previous_response_id` continues them on any target. Built-in tools are refused (400 naming `tools[i].type`) where the target has no Responses API.',
        }),
        requestBody: { required: true, content: { 'application/json': { schema: RESPONSES_REQUEST } } },
      },
    },
    '/responses/{response_id}': {
      get: forwarded('getResponse', 'Get a stored response', { parameters: [RESPONSE_ID], description: 'From the gateway\'s store when the gateway produced it; else from the provider named by the request (404 when none is named).' }),
      delete: forwarded('deleteResponse', 'Delete a stored response', { parameters: [RESPONSE_ID], description: 'From the gateway\'s store when the gateway produced it (200, no body); else at the provider.' }),
    },
    '/responses/{response_id}/input_items': {
      get: forwarded('listResponseInputItems', 'List the input items of a response', { parameters: [RESPONSE_ID, ...inputItemsQuery], description: 'From the gateway\'s store when the gateway produced it (newest first unless `order=asc`); else from the provider.' }),
    },
    ...messagesPaths(),
    '/models': {
      get: {
        ...forwarded('listModels', 'List models', {
          parameters: [...modelsQuery, FETCH_INTEGRATED_MODELS],
          description:
            'Without a provider signal (provider, virtual key or config) the integrated catalog (with pricing), filtered by the query; with one, the provider\'s own model list. x-gateway-fetch-integrated-models: true (or a config\'s fetch_integrated_models) forces the catalog.',
        }),
        responses: { '200': { ...json('the catalog, or the provider\'s list', { anyOf: [ref('ModelList'), ANY_JSON] }), headers: INFERENCE_HEADERS }, ...inferenceErrors() },
      },
    },
    '/proxy/{route}': passThrough(
      'route',
      'proxy',
      'Forward any path to the provider, built-in routes included',
      'Any method and any path after /v1/proxy/ (several segments) goes to the selected provider untouched, even a built-in route such as chat/completions: no validation, no conversion; the answer comes back exactly as received.',
    ),
    '/{provider-endpoint}': passThrough(
      'provider-endpoint',
      'passThrough',
      'Forward any other path to the provider',
      'Any /v1 path that no other route matches (several segments included) goes to the selected provider with its method, query and body as given; the answer comes back exactly as received.',
    ),
  };
}
