/**
 * The canonical call: one client request as the pipeline and the adapters see it, typed by route. Validation
 * hands its typed body on (a chat call carries a ChatRequest, a rerank call a RerankRequest...); the routes that
 * validate nothing carry what the client sent.
 */
import type { ChatRequest, CompletionRequest, EmbeddingRequest, RerankRequest } from './openai-types.ts';

/** The inference routes the gateway knows. `passthrough` is any other /v1 path (and /v1/proxy/...). */
export type RouteKind =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'rerank'
  | 'models'
  | 'responses.create'
  | 'responses.get'
  | 'responses.delete'
  | 'responses.input_items'
  /** the Anthropic Messages API inbound (/v1/messages) and its token count */
  | 'messages'
  | 'messages.count_tokens'
  | 'passthrough';

/** The route and its body, as the route handler validated it. */
export type RoutedBody =
  | { route: 'chat'; body: ChatRequest }
  | { route: 'completions'; body: CompletionRequest }
  | { route: 'embeddings'; body: EmbeddingRequest }
  | { route: 'rerank'; body: RerankRequest }
  /** the Responses API: a request checked by src/responses/validate.ts (a provider without it runs it over chat) */
  | { route: 'responses.create'; body: Readonly<Record<string, unknown>> }
  /** the Messages API: a JSON object with model and messages (and max_tokens to generate), checked by the route */
  | { route: 'messages' | 'messages.count_tokens'; body: Readonly<Record<string, unknown>> }
  | { route: 'models' | 'responses.get' | 'responses.delete' | 'responses.input_items'; body: unknown }
  /** forwarded as given: the parsed JSON when the body is JSON, else undefined (the bytes are in rawBody) */
  | { route: 'passthrough'; body: unknown };

export interface CallParts {
  method: string;
  /** for passthrough: the path after /v1 (or after /v1/proxy), starting with a slash, without the query */
  path: string;
  /** the raw query string without `?`, forwarded as given */
  query: string;
  /**
   * false when the client opted out of strict OpenAI compliance (header x-gateway-strict-reference-compliance:
   * false, or body field strict_reference_compliance: false): adapters may then pass provider extras such as
   * `thinking` and return `content_blocks`.
   */
  strictReferenceCompliance: boolean;
  /** the body bytes exactly as the client sent them (or as a step rewrote the body) */
  rawBody: Buffer | undefined;
  contentType: string | undefined;
  /** path parameters of built-in routes (e.g. response_id) */
  params: Readonly<Record<string, string>>;
}

export type InferenceCall = CallParts & RoutedBody;

/**
 * The same call with a rewritten body (override_params, a guardrail's redaction): same route, and the bytes the
 * upstream gets re-serialised from the new body.
 */
export function withBody<C extends InferenceCall>(call: C, body: Record<string, unknown>): C {
  return { ...call, body, rawBody: Buffer.from(JSON.stringify(body)), contentType: 'application/json' };
}
