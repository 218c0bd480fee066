/**
 * The batch create body (api-surface §2.4): OpenAI's fields, checked so that a bad one is a 400 naming it, plus the
 * gateway's `gateway_options` (routing inside the body: the saved provider to use, and the bucket or model a
 * provider without OpenAI's batch API needs). `gateway_options` never reaches the provider.
 */
import { invalidParam } from '../../../core/errors.ts';

export const COMPLETION_WINDOWS = ['24h', 'immediate'] as const;
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/responses'] as const;

export interface BatchCreate {
  /** what the provider gets (gateway_options taken out) */
  body: Record<string, unknown>;
  inputFileId: string;
  /** gateway_options['x-gateway-virtual-key'] */
  savedProvider: string | undefined;
}

function requiredText(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > 1024) throw invalidParam(name, `${name} is required: a non-empty string.`);
  return value;
}

function oneOf(body: Record<string, unknown>, name: string, allowed: readonly string[]): void {
  const value = requiredText(body, name);
  if (!allowed.includes(value)) throw invalidParam(name, `${name} must be one of ${allowed.join(', ')}; got "${value.slice(0, 100)}".`);
}

function record(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectBody(body: unknown): Record<string, unknown> {
  if (!record(body)) throw invalidParam('body', 'The request body must be a JSON object.', 'invalid_body');
  return body;
}

export function parseBatchCreate(input: unknown): BatchCreate {
  const body = objectBody(input);
  const inputFileId = requiredText(body, 'input_file_id');
  oneOf(body, 'endpoint', BATCH_ENDPOINTS);
  oneOf(body, 'completion_window', COMPLETION_WINDOWS);
  if (body.metadata !== undefined && body.metadata !== null && !record(body.metadata)) throw invalidParam('metadata', 'metadata must be an object of strings.');
  const { gateway_options: options, ...forwarded } = body;
  let savedProvider: string | undefined;
  if (options !== undefined) {
    if (!record(options)) throw invalidParam('gateway_options', 'gateway_options must be an object.');
    for (const [name, value] of Object.entries(options)) {
      if (typeof value !== 'string') throw invalidParam(`gateway_options.${name}`, `gateway_options.${name} must be a string.`);
    }
    const slug = options['x-gateway-virtual-key'];
    if (typeof slug === 'string') savedProvider = slug.startsWith('@') ? slug.slice(1) : slug;
    // the provider-specific options a translating adapter reads (the S3 bucket, the provider's model)
    forwarded.gateway_options = options;
  }
  return { body: forwarded, inputFileId, savedProvider };
}

/** The body an OpenAI-shaped provider gets: the gateway's options taken out. */
export function withoutGatewayOptions(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { gateway_options: _options, ...rest } = body;
  return rest;
}

export function parseFineTuningCreate(input: unknown): { body: Record<string, unknown>; trainingFile: string; validationFile: string | undefined; savedProvider: string | undefined } {
  const body = objectBody(input);
  requiredText(body, 'model');
  const trainingFile = requiredText(body, 'training_file');
  let validationFile: string | undefined;
  if (body.validation_file !== undefined && body.validation_file !== null) validationFile = requiredText(body, 'validation_file');
  if (body.suffix !== undefined && body.suffix !== null && typeof body.suffix !== 'string') throw invalidParam('suffix', 'suffix must be a string.');
  if (body.method !== undefined && !record(body.method)) throw invalidParam('method', 'method must be an object ({type: supervised | dpo, ...}).');
  const { gateway_options: options, ...forwarded } = body;
  let savedProvider: string | undefined;
  if (options !== undefined) {
    if (!record(options)) throw invalidParam('gateway_options', 'gateway_options must be an object.');
    const slug = options['x-gateway-virtual-key'];
    if (slug !== undefined && typeof slug !== 'string') throw invalidParam('gateway_options.x-gateway-virtual-key', 'gateway_options.x-gateway-virtual-key must be a string.');
    if (typeof slug === 'string') savedProvider = slug.startsWith('@') ? slug.slice(1) : slug;
  }
  return { body: forwarded, trainingFile, validationFile, savedProvider };
}
