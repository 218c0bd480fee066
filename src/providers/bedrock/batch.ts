/**
 * Bedrock batch inference (https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference-data.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_CreateModelInvocationJob.html) takes its input from
 * S3 as JSONL records `{recordId, modelInput}`, where modelInput is the model's own InvokeModel body. These are the
 * transforms between OpenAI's batch shapes and Bedrock's, and the resource hooks that serve /v1/files (the upload,
 * translated and stored in S3: s3.ts) and /v1/batches (the job calls: batch-jobs.ts). Fine-tuning, and the other file
 * operations, are refused with a 400 that says so.
 */
import { randomBytes } from 'node:crypto';
import type { Transform } from 'node:stream';
import type { ChatRequest } from '../../core/openai-types.ts';
import { invalidParam } from '../../core/errors.ts';
import { toAnthropicMessagesBody } from '../anthropic/index.ts';
import type { ProviderTarget, ResourceCall, ResourceHooks, ResourceInput, ResourceOperation } from '../contract.ts';
import { isRecord } from '../shared/json.ts';
import { createJobCall, createOutputTranslator, getJobCall, listJobsCall, stopJobCall, toOpenAiBatch } from './batch-jobs.ts';
import { jsonlTransform } from './jsonl.ts';
import { bucketOf, getObjectCall, parseS3Uri, s3Uri, storeBatchInput } from './s3.ts';

export { batchStatusOf } from './batch-jobs.ts';

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

/** Batch input lines translated as they stream to S3 (s3.ts); a line that cannot be fails the upload with its 400. */
export function createBatchInputTranslator(): Transform {
  return jsonlTransform((text, line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalidParam(`input line ${line}`, `input line ${line} is not JSON.`);
    }
    return JSON.stringify(toBedrockBatchRecord(parsed, line));
  });
}

const SERVED: ReadonlySet<ResourceOperation> = new Set(['files.create', 'batches.create', 'batches.list', 'batches.retrieve', 'batches.cancel', 'batches.output']);

function optionalText(body: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) throw invalidParam(name, `${name} must be a non-empty string.`);
  return value;
}

/** The batch body checked for Bedrock and the gateway's options folded in: what `operation` builds the job from. */
function batchBody(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (body.endpoint !== '/v1/chat/completions') throw invalidParam('endpoint', 'Bedrock batches run chat completions (Claude): endpoint must be /v1/chat/completions.');
  const options = isRecord(body.gateway_options) ? body.gateway_options : {};
  const model = optionalText(body, 'model') ?? (typeof options['x-gateway-provider-model'] === 'string' ? options['x-gateway-provider-model'] : undefined);
  if (!model) throw invalidParam('model', 'Bedrock batches need model: the Bedrock model id (or inference profile) the job runs.');
  const roleArn = optionalText(body, 'role_arn');
  if (!roleArn || !/^arn:aws(-[a-z]+)*:iam::\d{12}:role\/.+$/.test(roleArn)) {
    throw invalidParam('role_arn', 'Bedrock batches need role_arn: the IAM role (arn:aws:iam::<account>:role/<name>) that lets Bedrock read and write the S3 bucket.');
  }
  const jobName = optionalText(body, 'job_name');
  if (jobName !== undefined && !/^[a-zA-Z0-9]{1,63}(-*[a-zA-Z0-9+\-.]){0,63}$/.test(jobName)) throw invalidParam('job_name', 'job_name must be letters, digits and dashes (at most 63).');
  let output: string | undefined;
  const config = body.output_data_config;
  if (typeof config === 'string') output = config;
  else if (isRecord(config)) output = typeof config.s3Uri === 'string' ? config.s3Uri : (isRecord(config.s3OutputDataConfig) && typeof config.s3OutputDataConfig.s3Uri === 'string' ? config.s3OutputDataConfig.s3Uri : undefined);
  if (config !== undefined && config !== null && output === undefined) throw invalidParam('output_data_config', 'output_data_config must be an s3:// URI (or {s3OutputDataConfig: {s3Uri}}).');
  if (output !== undefined) parseS3Uri(output, 'output_data_config');
  const bucket = typeof options['x-gateway-aws-s3-bucket'] === 'string' ? options['x-gateway-aws-s3-bucket'] : undefined;
  return { ...body, model, role_arn: roleArn, job_name: jobName, output_data_config: output, s3_bucket: bucket };
}

function createCall(input: ResourceInput, target: ProviderTarget): ResourceCall {
  const body = input.body ?? {};
  if (!input.location) throw invalidParam('input_file_id', 'The input file was not uploaded through Bedrock: upload it with POST /v1/files (purpose batch) on Bedrock first.');
  const inputLocation = parseS3Uri(input.location, 'input_file_id');
  const named = typeof body.s3_bucket === 'string' ? body.s3_bucket : undefined;
  const bucket = named !== undefined ? bucketOf(target, named, 'gateway_options.x-gateway-aws-s3-bucket') : inputLocation.bucket;
  const outputUri = typeof body.output_data_config === 'string' ? body.output_data_config : s3Uri({ bucket, key: `${input.workspaceId}/output/` });
  const jobName = typeof body.job_name === 'string' ? body.job_name : `gateway-batch-${randomBytes(8).toString('hex')}`;
  return createJobCall(target, { model: String(body.model), roleArn: String(body.role_arn), jobName, inputUri: input.location, outputUri }, () => new Date());
}

function requiredId(input: ResourceInput): string {
  if (!input.id) throw invalidParam('batch_id', 'batch_id is required.');
  return input.id;
}

export const bedrockResourceHooks: ResourceHooks = {
  unsupported: (operation) =>
    SERVED.has(operation)
      ? undefined
      : `Bedrock keeps batch files in S3 and has no OpenAI files or fine-tuning API: ${operation} is not available on Bedrock (POST /v1/files with purpose batch and /v1/batches are).`,
  requestBody: (operation, body) => (operation === 'batches.create' ? batchBody(body) : { ...body }),
  answerObject: (operation, object) => (operation.startsWith('batches.') ? toOpenAiBatch(object) : { ...object }),
  operation(operation, input, target) {
    switch (operation) {
      case 'batches.create':
        return createCall(input, target);
      case 'batches.retrieve':
        return getJobCall(target, requiredId(input));
      case 'batches.cancel':
        return stopJobCall(target, requiredId(input));
      case 'batches.list':
        return listJobsCall(target, input.query);
      case 'batches.output':
        return getObjectCall(target, parseS3Uri(requiredId(input), 'output_file_id'));
      default:
        return undefined;
    }
  },
  upload: (upload, input, target) => storeBatchInput({ ...upload, workspaceId: input.workspaceId, translate: createBatchInputTranslator, now: () => new Date() }, target),
  contentTransform: (operation) => (operation === 'batches.output' ? createOutputTranslator() : undefined),
};
