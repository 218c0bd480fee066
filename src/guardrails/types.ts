/**
 * The guardrail check contract: every check, local or remote, is one function from a context and its (already
 * validated) parameters to a verdict. The pipeline builds one CheckContext per hook run (§5.2: input guardrails
 * run as a before-request hook, output guardrails as an after-request hook) and hands it to `runChecks`.
 */
import type { RouteKind } from '../providers/contract.ts';

/**
 * The request-type vocabulary of `default.allowedRequestTypes` (api-surface §3.14). The pipeline may report either
 * the gateway's own route kinds or these names; the check treats `chatComplete` and `chat` (and so on) as one.
 */
export const SPEC_REQUEST_TYPES = [
  'complete', 'chatComplete', 'embed', 'rerank', 'moderate', 'proxy', 'imageGenerate', 'createSpeech',
  'createTranscription', 'createTranslation', 'realtime', 'uploadFile', 'listFiles', 'retrieveFile', 'deleteFile',
  'retrieveFileContent', 'createBatch', 'retrieveBatch', 'cancelBatch', 'listBatches', 'getBatchOutput',
  'listFinetunes', 'createFinetune', 'retrieveFinetune', 'cancelFinetune', 'createModelResponse', 'getModelResponse',
  'deleteModelResponse', 'listResponseInputItems', 'messages',
] as const;

export type SpecRequestType = (typeof SPEC_REQUEST_TYPES)[number];
export type RequestType = RouteKind | SpecRequestType;

export interface CheckContext {
  /** input = before the request goes upstream; output = after the answer came back */
  phase: 'input' | 'output';
  requestType: RequestType;
  /** the requested model; undefined when the route has none */
  model: string | undefined;
  /** the text to check: the last user message (input) or the answer text (output) */
  text: string;
  /** the parsed answer content for the JSON checks, when it parses; undefined otherwise */
  json: unknown;
  /** the request body as the client sent it (sent to webhooks as is) */
  request: unknown;
  /** the canonical response (output phase); undefined in the input phase */
  response: unknown;
  /** the request metadata (x-gateway-metadata merged with the key's defaults) */
  metadata: Record<string, unknown>;
}

/** One piece of `text` to replace when redacting: `[start, end)` in UTF-16 code units. */
export interface Redaction {
  start: number;
  end: number;
  replacement: string;
}

export interface Verdict {
  /** the check id as configured (an alias such as `default.alllowercase` is kept as written) */
  id: string;
  /** true = passed */
  verdict: boolean;
  explanation: string;
  data?: unknown;
  /** the checked text with each finding replaced by a `[REDACTED_<CATEGORY>]` token (PII checks with redact) */
  redacted?: string;
  /** the spans behind `redacted`, so that `runChecks` can merge the redactions of several checks */
  redactions?: Redaction[];
  durationMs?: number;
}

/** What a check returns: `runChecks` stamps the configured id and the duration. */
export type CheckResult = Omit<Verdict, 'id' | 'durationMs'>;

export interface CheckOptions {
  /** aborted when the caller gives up (client disconnect, request timeout): remote checks stop waiting */
  signal?: AbortSignal;
}

export type Check<P = unknown> = (
  context: CheckContext,
  parameters: P,
  options?: CheckOptions,
) => CheckResult | Promise<CheckResult>;

/** A check bound to its validated parameters: what the registry hands back, ready to run many times. */
export type BoundCheck = (context: CheckContext, options: CheckOptions) => CheckResult | Promise<CheckResult>;

/** One configured check, as in a guardrail's `checks[]` (api-surface §3.14 GuardrailCheck). */
export interface CheckConfig {
  id: string;
  parameters?: unknown;
  name?: string;
  is_enabled?: boolean;
}

/** A config's guardrail entry: a saved guardrail's id or slug, or an inline hook. */
export type Guardrail = string | Readonly<Record<string, unknown>>;
