/** What the pipeline hands the transport: the chosen answer, how it was reached, and what is left to run on it. */
import type { CachedAnswer } from '../cache/response-cache.ts';
import type { CacheStatus } from '../cache/pipeline.ts';
import type { GatewayError } from '../core/errors.ts';
import type { HookResult } from '../guardrails/hooks.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget } from '../providers/contract.ts';
import type { SavedProviderRef } from '../domain/providers/saved-providers.ts';
import type { Answer } from './read-answer.ts';
import type { OutputVerdict } from './steps/output-guardrails.ts';

export type ChosenAnswer = Answer | { kind: 'cached'; cached: CachedAnswer };

/** Run by the stream renderer after the last chunk, before `data: [DONE]`; an error it returns ends the stream. */
export type StreamEnd = (collected: { text: string; chunks: readonly unknown[] }) => Promise<GatewayError | undefined>;

export interface Outcome {
  answer: ChosenAnswer;
  adapter: ProviderAdapter;
  target: ProviderTarget;
  /** the call as the chosen attempt sent it (override_params applied, redacted by a guardrail) */
  call: InferenceCall;
  /** the config path of the target that answered (x-gateway-last-used-option-index); undefined without a config */
  optionPath: string | undefined;
  savedConfig: { id: string; versionId: string } | undefined;
  /** the saved provider (`@slug`, a virtual key) the answering attempt used: its id, slug, integration and limits */
  savedProvider: SavedProviderRef | undefined;
  /** retries made on the target that answered */
  retries: number;
  timeoutMs: number | undefined;
  cacheStatus: CacheStatus;
  /** notes for x-gateway-warnings: the adapter's dropped settings, the cache's */
  warnings: readonly string[];
  /** verdicts of the input guardrails that ran */
  input: readonly HookResult[];
  /** the verdict of the output guardrails on a JSON answer (judged before it was chosen) */
  output: OutputVerdict | undefined;
  /** set when a stream must be seen whole at its end (output guardrails, the cache store) */
  streamEnd: StreamEnd | undefined;
}
