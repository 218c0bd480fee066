/**
 * The provider adapter contract. Everything provider-specific lives behind it, in that provider's folder;
 * the core only asks an adapter, by route, how to reach its upstream and how to read the answer.
 */
import type { Readable, Transform } from 'node:stream';
import type { StreamFraming } from '../upstream/framing/index.ts';
import type { UpstreamRequest } from '../upstream/client.ts';
import type { Allowlist, LookupAll } from '../upstream/ssrf-guard.ts';

// what an adapter produces is what the upstream client sends: the types belong to upstream/, adapters name them here
export type { StreamFraming, UpstreamRequest };

// the canonical call is the core's: adapters read it, the pipeline builds it
export type { InferenceCall, RouteKind } from '../core/inference-call.ts';
import type { InferenceCall, RouteKind } from '../core/inference-call.ts';

export interface Capabilities {
  /** the routes the adapter serves; routing and validation read these, nothing tests a provider's name */
  routes: ReadonlySet<RouteKind>;
  /** documented per provider in docs/providers.md (capabilities-table.ts) */
  streaming: boolean;
  tools: boolean;
  framing: StreamFraming;
}

/** Where and how one call goes: resolved before the adapter runs (base URL, credentials, cloud settings). */
export interface ProviderTarget {
  provider: string;
  /** base URL ending without a slash, e.g. https://api.openai.com/v1 */
  baseUrl: string;
  /** true when the base URL came from the client (x-gateway-custom-host): connect through the SSRF guard */
  customHost: boolean;
  /** the provider credential from `Authorization: Bearer <token>`, if any */
  apiKey: string | undefined;
  /** x-gateway-<cloud>-* settings, keyed by the header suffix (e.g. `azure-resource-name`) */
  cloud: Readonly<Record<string, string>>;
}

/**
 * How a route's answer is read: undefined means the provider already speaks the OpenAI format: stream it back untouched.
 * A transform that finds nothing to change returns `UNCHANGED`: the provider's bytes and headers are then sent as received.
 */
export type ResponseTransform = (json: unknown, call: InferenceCall, target: ProviderTarget) => unknown;

/** Returned by a ResponseTransform that leaves the answer as the provider wrote it. */
export const UNCHANGED: unique symbol = Symbol('unchanged answer');

/** One framed upstream event: SSE `event`/`data`, or an AWS event-stream message's event type and JSON payload. */
export interface StreamEvent {
  event: string | undefined;
  data: string;
}

/**
 * A pure state machine fed framed provider events, emitting canonical chunks (chat.completion.chunk or
 * text_completion objects), each sent as one `data:` event. A provider error event is thrown as a GatewayError.
 * The renderer ends the stream with `data: [DONE]`.
 */
export interface StreamDecoder {
  push(event: StreamEvent): unknown[];
  end(): unknown[];
}

/** A provider error body -> the message (and code) kept in the OpenAI error shape. */
export type ErrorParser = (status: number, body: unknown) => { message: string; type?: string; code?: string } | undefined;

/**
 * What `prepare` may need besides the request. A URL that comes from the client (e.g. the token_uri of a service
 * account key) is a custom host: the adapter checks it with `checkCustomHost(url, allowlist, lookup)` and connects
 * with `guardedLookup(allowlist)` before calling it. Without a context (unit tests), adapters use an empty allowlist.
 */
export interface PrepareContext {
  allowlist: Allowlist;
  lookup?: LookupAll;
  /** aborted when the call times out or the client goes away */
  signal: AbortSignal;
}

export interface ProviderAdapter {
  readonly name: string;
  readonly capabilities: Capabilities;
  /** undefined when the provider has no fixed public endpoint (local servers; clouds that use baseUrlFor) */
  readonly defaultBaseUrl: string | undefined;
  /**
   * the base URL from cloud settings (Azure resource, Vertex region and project, Bedrock region), used when no
   * custom host is given; throws a 400 naming the missing x-gateway-<cloud>-* header
   */
  baseUrlFor?(cloud: Readonly<Record<string, string>>): string;
  buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest;
  responseTransform(route: RouteKind): ResponseTransform | undefined;
  /** a decoder when the provider streams in another format than OpenAI's; undefined relays the stream untouched */
  streamDecoder?(call: InferenceCall, target: ProviderTarget): StreamDecoder | undefined;
  /** asynchronous last step before sending: request signing (SigV4), access-token fetch and refresh */
  prepare?(request: UpstreamRequest, target: ProviderTarget, context?: PrepareContext): Promise<UpstreamRequest>;
  /**
   * The provider answered 401 to `request` as `prepare` made it: forget the cached credential it carried (revoked
   * before it expired). True when one was forgotten: the call is then prepared and sent once more.
   */
  credentialRefused?(request: UpstreamRequest, target: ProviderTarget): boolean;
  /** reads the provider's error body; the default understands `{error:{message}}`, `{error:"..."}` and `{message}` */
  parseError?: ErrorParser;
  /** the x-gateway-<cloud>-* headers and config fields it reads; undefined when it reads none (registry.ts attaches them) */
  readonly cloudSettings?: CloudSettings;
  /** files, batches and fine-tuning where the provider departs from OpenAI's shapes (undefined: forwarded as they are) */
  readonly resources?: ResourceHooks;
}

/**
 * One setting of a cloud provider, read by its adapter from `ProviderTarget.cloud[key]`. The client sends it as the
 * header `x-gateway-<key>`, or sets it on a routing config target as `configField`.
 */
export interface CloudSetting {
  /** the key in ProviderTarget.cloud: the header's name after `x-gateway-` (`foo-region` for x-gateway-foo-region) */
  readonly key: string;
  /** the routing config field that sets it (`foo_region`); undefined when only the header can */
  readonly configField?: string;
  /** a credential: sealed when a config is stored, masked when one is shown */
  readonly secret?: boolean;
}

/**
 * The cloud settings an adapter reads, as data: the core collects the headers, accepts the config fields and seals
 * the secrets from these declarations, so nothing outside src/providers/ names a cloud or its fields.
 */
export interface CloudSettings {
  /** every x-gateway-* header whose name starts with this (`x-gateway-foo-`) is collected into ProviderTarget.cloud */
  readonly headerPrefix: string;
  /** every setting the adapter reads; each key starts with the prefix's part after `x-gateway-` */
  readonly settings: readonly CloudSetting[];
}

/** The OpenAI files, batches and fine-tuning operations the gateway serves (src/http/routes/files-batches/). */
export type ResourceOperation =
  | 'files.create' | 'files.list' | 'files.retrieve' | 'files.delete' | 'files.content'
  | 'batches.create' | 'batches.list' | 'batches.retrieve' | 'batches.cancel' | 'batches.output'
  | 'fine_tuning.create' | 'fine_tuning.list' | 'fine_tuning.retrieve' | 'fine_tuning.cancel' | 'fine_tuning.events' | 'fine_tuning.checkpoints';

/**
 * How a provider's files, batches and fine-tuning API departs from OpenAI's. Each hook is optional: without it the
 * request goes to `{base URL}{OpenAI's path}` (the pass-through path) and the answer comes back as it is.
 */
export interface ResourceHooks {
  /** a message for the 400 when the provider cannot serve this operation here */
  unsupported?(operation: ResourceOperation, target: ProviderTarget): string | undefined;
  /** the JSON body of a create as the provider wants it; throws a 400 naming a field it cannot honour */
  requestBody?(operation: ResourceOperation, body: Readonly<Record<string, unknown>>, target: ProviderTarget): Record<string, unknown>;
  /** one object of an answer (a file, a batch, a fine-tuning job) in OpenAI's shape */
  answerObject?(operation: ResourceOperation, object: Readonly<Record<string, unknown>>, target: ProviderTarget): Record<string, unknown>;
  /** the provider's own call for an operation its API does not serve at OpenAI's path (a control plane, S3) */
  operation?(operation: ResourceOperation, input: ResourceInput, target: ProviderTarget): ResourceCall | undefined;
  /** an upload the provider cannot take as OpenAI's multipart: translated from the client's stream, then stored */
  upload?(upload: { stream: Readable; contentType: string }, input: ResourceInput, target: ProviderTarget): Promise<StoredUpload>;
  /** a stream the content of an operation (a batch's output) goes through on its way to the client */
  contentTransform?(operation: ResourceOperation, target: ProviderTarget): Transform | undefined;
}

/** What the route knows of the object an operation is about, for a provider's own call. */
export interface ResourceInput {
  workspaceId: string;
  /** the id of the object (file, batch) named by the path */
  id?: string;
  /** where the provider keeps the file the operation names (its record's location: an s3:// URI) */
  location?: string | null;
  /** the client's query string (list paging) */
  query?: string;
  /** a create's JSON body, after `requestBody` */
  body?: Readonly<Record<string, unknown>>;
}

/** One provider call in place of `{base URL}{OpenAI's path}`. */
export interface ResourceCall {
  request: UpstreamRequest;
  /** the 2xx answer (parsed JSON, undefined when empty or not JSON) -> the object or list the route reads */
  answer(json: unknown): Record<string, unknown>;
  /** a non-2xx answer that is not JSON (S3 answers XML) -> its message */
  error?(status: number, text: string): { message: string; code?: string };
  /** the answer carries no object (a stop): the route reads it again with the retrieve operation */
  reread?: boolean;
}

/** An upload made ready to store: its body streams from where the translation left it, with a known length. */
export interface StoredUpload {
  call: ResourceCall;
  body: Readable;
  length: number;
  /** where the provider keeps it (an s3:// URI): kept on the file's record */
  location: string;
  /** removes what the translation left behind (a temporary file); called once the call is over */
  dispose(): Promise<void>;
}
