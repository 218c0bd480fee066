/**
 * The semantic cache's embedding call, a step of the pipeline handed to the cache lookup (cache/ itself makes no
 * upstream call). It is made with the gateway's own machinery: the registry's adapter for the
 * configured provider (so any provider that serves embeddings can embed prompts), the base URL it resolves
 * (a custom host through the SSRF guard), the shared undici pool, and the one answer reader (read-answer.ts) into
 * OpenAI's `{data: [{embedding}]}`. It throws on any failure; the caller turns that into a cache miss.
 * The call is paid for like any other: it reports what it used (`spend`), which the cost step adds to the request's.
 */
import { createHash } from 'node:crypto';
import type { AbortLink } from '../../core/abort-link.ts';
import type { Embedding } from '../../cache/semantic-pipeline.ts';
import { callUpstream } from '../call-upstream.ts';
import type { GatewayHeaders } from '../../core/context.ts';
import { resolveTarget, type TargetDeps } from '../resolve-target.ts';
import type { InferenceCall } from '../../providers/contract.ts';
import { readAnswer } from '../read-answer.ts';
import type { PlannedEmbedding } from '../../routing/target-settings.ts';
import type { UpstreamClient } from '../../upstream/client.ts';
import type { TokenUsage } from '../../logging/usage.ts';
import { usageOf } from '../../logging/usage.ts';

/**
 * An embedding slower than this is a miss: the user's request is waiting for it, and an upstream answer is
 * usually cheaper than a long wait. The request's own timeout wins when it is shorter.
 */
export const EMBEDDING_TIMEOUT_MS = 5_000;

export interface EmbedDeps extends TargetDeps {
  upstream: UpstreamClient;
}


/**
 * The embedding call's headers: the embedding's own destination. When it names the provider the answering target
 * uses, the credentials it leaves out (api key, custom host, cloud settings) are that target's: one key for both
 * calls, as a user configuring one provider expects. Another provider never gets the target's credentials.
 */
export function embeddingHeaders(embedding: PlannedEmbedding, attempt: GatewayHeaders): GatewayHeaders {
  const same = embedding.provider === attempt.provider;
  return {
    ...attempt,
    config: undefined,
    provider: embedding.provider,
    providerSlug: undefined,
    virtualKey: undefined,
    providerToken: embedding.apiKey ?? (same ? attempt.providerToken : undefined),
    customHost: embedding.customHost ?? (same ? attempt.customHost : undefined),
    cloud: { ...(same ? attempt.cloud : {}), ...embedding.cloud },
    // the client's headers are for the chat provider, not for the embedder
    forwardHeaders: [],
    requestTimeoutMs: Math.min(attempt.requestTimeoutMs ?? EMBEDDING_TIMEOUT_MS, EMBEDDING_TIMEOUT_MS),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first embedding of an OpenAI-shaped answer, checked: finite numbers with a direction. */
export function vectorOf(answer: unknown): Float32Array {
  const first = isRecord(answer) && Array.isArray(answer.data) ? answer.data[0] : undefined;
  const values = isRecord(first) ? first.embedding : undefined;
  if (!Array.isArray(values) || values.length === 0) throw new Error('the answer has no embedding');
  const vector = new Float32Array(values.length);
  let direction = false;
  for (let i = 0; i < values.length; i++) {
    const value: unknown = values[i];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`embedding value ${i} is not a finite number`);
    vector[i] = value;
    if (value !== 0) direction = true;
  }
  if (!direction) throw new Error('the embedding is a zero vector');
  return vector;
}

/** What one embedding call used, for the request's cost: the provider, the model and the answer's usage. */
export interface EmbeddingSpend {
  provider: string;
  model: string;
  /** undefined when the answer reported none */
  usage: TokenUsage | undefined;
}

export async function embedText(
  text: string,
  embedding: PlannedEmbedding,
  attempt: GatewayHeaders,
  clientGone: AbortLink,
  deps: EmbedDeps,
): Promise<Embedding & { spend: EmbeddingSpend }> {
  const headers = embeddingHeaders(embedding, attempt);
  const { adapter, target } = await resolveTarget(headers, 'embeddings', deps);
  const body = { model: embedding.model, input: text };
  const call: InferenceCall = {
    route: 'embeddings',
    method: 'POST',
    path: '',
    query: '',
    body,
    strictReferenceCompliance: true,
    rawBody: Buffer.from(JSON.stringify(body)),
    contentType: 'application/json',
    params: {},
  };
  const options = { headers, clientHeaders: {}, clientGone, allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}) };
  const sent = await callUpstream(deps.upstream, adapter, target, call, options);
  const answer = await readAnswer(sent, { adapter, target, call, timeoutMs: headers.requestTimeoutMs, collectsStream: false });
  if (answer.kind !== 'json') {
    answer.attempt.done();
    const detail = answer.kind === 'provider-error' ? `: ${JSON.stringify(answer.body).slice(0, 200)}` : '';
    throw new Error(`the embedding provider answered ${answer.status}${detail}`);
  }
  const spend: EmbeddingSpend = { provider: adapter.name, model: embedding.model, usage: isRecord(answer.canonical) ? usageOf(answer.canonical.usage) : undefined };
  const vector = vectorOf(answer.canonical);
  const space = createHash('sha256').update(`${adapter.name}\n${target.baseUrl}\n${embedding.model}`).digest('hex').slice(0, 32);
  return { space, vector, spend };
}
