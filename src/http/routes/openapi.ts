/**
 * GET /openapi.json: the OpenAPI document of the inference routes, generated from the same TypeBox schemas that
 * validate requests, with the routing config schema (`GatewayConfig`) published as a component.
 */
import type { FastifyInstance } from 'fastify';
import { ConfigSchema } from '../../routing/config-schema.ts';
import { ChatCompletionRequestSchema } from '../schemas/chat-completions.ts';
import { CompletionRequestSchema } from '../schemas/completions.ts';
import { EmbeddingRequestSchema } from '../schemas/embeddings.ts';
import { RerankRequestSchema } from '../schemas/rerank.ts';

const GATEWAY_HEADERS = [
  { name: 'x-gateway-api-key', in: 'header', required: true, schema: { type: 'string' }, description: 'gateway API key or JWT' },
  { name: 'x-gateway-provider', in: 'header', schema: { type: 'string' } },
  { name: 'x-gateway-config', in: 'header', schema: { type: 'string' }, description: 'a GatewayConfig as JSON (see components.schemas.GatewayConfig)' },
  { name: 'x-gateway-custom-host', in: 'header', schema: { type: 'string', format: 'uri' } },
  { name: 'x-gateway-request-timeout', in: 'header', schema: { type: 'integer', minimum: 1 } },
  { name: 'x-gateway-metadata', in: 'header', schema: { type: 'string' }, description: 'a JSON object' },
  { name: 'x-gateway-trace-id', in: 'header', schema: { type: 'string' } },
  { name: 'x-gateway-cache-namespace', in: 'header', schema: { type: 'string' } },
  { name: 'x-gateway-cache-force-refresh', in: 'header', schema: { type: 'boolean' } },
  { name: 'x-gateway-forward-headers', in: 'header', schema: { type: 'string' } },
];

function post(summary: string, schemaName: string) {
  return {
    post: {
      summary,
      parameters: GATEWAY_HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` } } } },
      responses: {
        '200': { description: 'the provider answer in the OpenAI shape (text/event-stream when `stream` is true)' },
        '400': { description: 'bad input, naming the field', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } },
        '401': { description: 'missing or invalid gateway credential' },
        '408': { description: 'x-gateway-request-timeout expired' },
        '446': { description: 'denied by a guardrail' },
        '502': { description: 'the provider could not be reached or answered garbage' },
      },
    },
  };
}

export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'AI gateway', version: '2.0.0' },
    servers: [{ url: '/v1' }],
    paths: {
      '/chat/completions': post('Chat completions', 'ChatCompletionRequest'),
      '/completions': post('Text completions', 'CompletionRequest'),
      '/embeddings': post('Embeddings', 'EmbeddingRequest'),
      '/rerank': post('Rerank', 'RerankRequest'),
    },
    components: {
      schemas: {
        GatewayConfig: ConfigSchema,
        ChatCompletionRequest: ChatCompletionRequestSchema,
        CompletionRequest: CompletionRequestSchema,
        EmbeddingRequest: EmbeddingRequestSchema,
        RerankRequest: RerankRequestSchema,
        ErrorResponse: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['message', 'type', 'param', 'code'],
              properties: { message: { type: 'string' }, type: { type: 'string' }, param: { type: ['string', 'null'] }, code: { type: ['string', 'null'] } },
            },
          },
        },
      },
    },
  };
}

export function registerOpenApiRoute(app: FastifyInstance): void {
  const document = JSON.stringify(buildOpenApiDocument());
  app.get('/openapi.json', async (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8');
    return document;
  });
}
