/**
 * Bedrock batch inference (https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference-data.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_CreateModelInvocationJob.html) takes its input from
 * S3 as JSONL records `{recordId, modelInput}`, where modelInput is the model's own InvokeModel body. These are the
 * pure transforms between OpenAI's batch shapes and Bedrock's; the S3 upload and the job calls are not wired yet,
 * so the resource hooks refuse files, batches and fine-tuning on Bedrock with a 400 that says so.
 */
import type { ChatRequest } from '../../core/openai-types.ts';
import { invalidParam } from '../../core/errors.ts';
import { toAnthropicMessagesBody } from '../anthropic/index.ts';
import type { ResourceHooks } from '../contract.ts';
import { isRecord } from '../shared/json.ts';

/** Claude's InvokeModel body names this version instead of a header */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

export interface BedrockBatchRecord {
  recordId: string;
  modelInput: Record<string, unknown>;
}

/** One OpenAI batch input line (`{custom_id, method, url, body}`) as a Bedrock record; `line` (1-based) names errors. */
export function toBedrockBatchRecord(input: unknown, line: number): BedrockBatchRecord {
  const at = `input line ${line}`;
  if (!isRecord(input)) throw invalidParam(at, `${at} is not a JSON object.`);
  const { custom_id: customId, url, body } = input;
  if (typeof customId !== 'string' || customId.length === 0) throw invalidParam(`${at}.custom_id`, `${at}.custom_id is required.`);
  if (url !== '/v1/chat/completions') throw invalidParam(`${at}.url`, `${at}.url must be /v1/chat/completions on Bedrock; got "${String(url).slice(0, 100)}".`);
  if (!isRecord(body) || typeof body.model !== 'string') throw invalidParam(`${at}.body.model`, `${at}.body needs a model.`);
  if (!/(^|[.:/])anthropic\.claude|^claude/.test(body.model)) {
    throw invalidParam(`${at}.body.model`, `${at}.body.model "${body.model.slice(0, 100)}": only Claude models are translated for Bedrock batches.`);
  }
  const { body: modelInput } = toAnthropicMessagesBody(body as unknown as ChatRequest, { strictReferenceCompliance: true, anthropicVersion: BEDROCK_ANTHROPIC_VERSION, includeModel: false, provider: 'bedrock' });
  return { recordId: customId, modelInput };
}

/** A whole OpenAI JSONL batch input as Bedrock's JSONL (blank lines skipped). */
export function toBedrockBatchInput(jsonl: string): string {
  const out: string[] = [];
  jsonl.split('\n').forEach((text, index) => {
    if (text.trim().length === 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalidParam(`input line ${index + 1}`, `input line ${index + 1} is not JSON.`);
    }
    out.push(JSON.stringify(toBedrockBatchRecord(parsed, index + 1)));
  });
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

/** Bedrock's job statuses (GetModelInvocationJob) in OpenAI's Batch enum. */
const STATUS: Readonly<Record<string, string>> = {
  Submitted: 'validating',
  Validating: 'validating',
  Scheduled: 'in_progress',
  InProgress: 'in_progress',
  PartiallyCompleted: 'completed',
  Completed: 'completed',
  Failed: 'failed',
  Stopping: 'cancelling',
  Stopped: 'cancelled',
  Expired: 'expired',
};

export function batchStatusOf(bedrockStatus: string): string {
  return STATUS[bedrockStatus] ?? 'in_progress';
}

export const bedrockResourceHooks: ResourceHooks = {
  unsupported: (operation) =>
    `Bedrock has no OpenAI-compatible files, batches or fine-tuning API, and ${operation} through Bedrock (S3 input, CreateModelInvocationJob) is not available in this version.`,
};
