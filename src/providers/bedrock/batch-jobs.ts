/**
 * Bedrock batch inference jobs behind OpenAI's /v1/batches, on the control plane
 * (https://bedrock.{region}.amazonaws.com, SigV4 service `bedrock`; a custom host serves it too):
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_CreateModelInvocationJob.html (POST /model-invocation-job),
 * GetModelInvocationJob (GET /model-invocation-job/{id}), ListModelInvocationJobs (GET /model-invocation-jobs),
 * StopModelInvocationJob (POST /model-invocation-job/{id}/stop). A batch's id is the job ARN's last part, which the
 * job calls accept as its identifier. The output is written by Bedrock to `{output s3Uri}/{job id}/{input name}.out`
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference-results.html), one
 * `{recordId, modelInput, modelOutput | error}` per line, turned back into OpenAI's output lines here.
 */
import type { Transform } from 'node:stream';
import { fromAnthropicMessage } from '../anthropic/index.ts';
import type { ProviderTarget, ResourceCall } from '../contract.ts';
import { isRecord } from '../shared/json.ts';
import { regionOf } from './endpoints.ts';
import { jsonlTransform } from './jsonl.ts';

type Json = Readonly<Record<string, unknown>>;

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

/** Bedrock's job statuses (GetModelInvocationJob) in OpenAI's Batch enum. */
export function batchStatusOf(bedrockStatus: string): string {
  return STATUS[bedrockStatus] ?? 'in_progress';
}

/** What the gateway sends CreateModelInvocationJob, from the batch body (batch.ts checks it). */
export interface JobCreate {
  model: string;
  roleArn: string;
  jobName: string;
  inputUri: string;
  outputUri: string;
}

function controlPlane(target: ProviderTarget): string {
  return target.customHost ? target.baseUrl : `https://bedrock.${regionOf(target.cloud)}.amazonaws.com`;
}

function jsonRequest(method: string, url: string, body: unknown): ResourceCall['request'] {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method, url, headers, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)), warnings: [] };
}

const record = (value: unknown): Json => (isRecord(value) ? value : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function createJobCall(target: ProviderTarget, job: JobCreate, now: () => Date): ResourceCall {
  const body = {
    jobName: job.jobName,
    roleArn: job.roleArn,
    modelId: job.model,
    inputDataConfig: { s3InputDataConfig: { s3Uri: job.inputUri, s3InputFormat: 'JSONL' } },
    outputDataConfig: { s3OutputDataConfig: { s3Uri: job.outputUri } },
  };
  return {
    request: jsonRequest('POST', `${controlPlane(target)}/model-invocation-job`, body),
    // the answer is only the ARN: the job is what was asked, just submitted
    answer: (json) => ({ ...body, jobArn: record(json).jobArn, status: 'Submitted', submitTime: now().toISOString() }),
  };
}

export function getJobCall(target: ProviderTarget, id: string): ResourceCall {
  return { request: jsonRequest('GET', `${controlPlane(target)}/model-invocation-job/${encodeURIComponent(id)}`, undefined), answer: (json) => ({ ...record(json) }) };
}

export function stopJobCall(target: ProviderTarget, id: string): ResourceCall {
  return { request: jsonRequest('POST', `${controlPlane(target)}/model-invocation-job/${encodeURIComponent(id)}/stop`, undefined), answer: () => ({}), reread: true };
}

/**
 * OpenAI pages with `after` (an id), Bedrock with an opaque nextToken: the newest `limit` jobs are listed and
 * has_more stays false, so that a client paging with `after` cannot loop over the same page.
 */
export function listJobsCall(target: ProviderTarget, query: string | undefined): ResourceCall {
  const limit = Number(new URLSearchParams(query ?? '').get('limit') ?? '20');
  const maxResults = Number.isSafeInteger(limit) && limit >= 1 ? Math.min(limit, 1000) : 20;
  const url = `${controlPlane(target)}/model-invocation-jobs?maxResults=${maxResults}&sortBy=CreationTime&sortOrder=Descending`;
  return {
    request: jsonRequest('GET', url, undefined),
    answer: (json) => ({ object: 'list', data: Array.isArray(record(json).invocationJobSummaries) ? record(json).invocationJobSummaries : [], has_more: false }),
  };
}

export function jobIdOf(jobArn: string): string {
  return jobArn.slice(jobArn.lastIndexOf('/') + 1);
}

function seconds(value: unknown): number | null {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(time) ? Math.floor(time / 1000) : null;
}

const lastPart = (uri: string) => uri.slice(uri.lastIndexOf('/') + 1);

/** Where Bedrock writes a job's results: `{output uri}/{job id}/{input object name}.out`. */
export function outputUriOf(job: Json): string | undefined {
  const arn = text(job.jobArn);
  const input = text(record(record(job.inputDataConfig).s3InputDataConfig).s3Uri);
  const output = text(record(record(job.outputDataConfig).s3OutputDataConfig).s3Uri);
  if (!arn || !input || !output) return undefined;
  return `${output.endsWith('/') ? output : `${output}/`}${jobIdOf(arn)}/${lastPart(input)}.out`;
}

/** A Bedrock job (Get, List's summaries, or the one just created) as OpenAI's Batch. */
export function toOpenAiBatch(job: Json): Record<string, unknown> {
  const arn = text(job.jobArn) ?? '';
  const bedrockStatus = text(job.status) ?? 'Submitted';
  const status = batchStatusOf(bedrockStatus);
  const input = text(record(record(job.inputDataConfig).s3InputDataConfig).s3Uri);
  const ended = seconds(job.endTime);
  const message = text(job.message);
  const count = (name: string) => (typeof job[name] === 'number' ? job[name] : 0);
  return {
    id: jobIdOf(arn),
    object: 'batch',
    endpoint: '/v1/chat/completions',
    model: text(job.modelId) ?? null,
    errors: message && (status === 'failed' || status === 'expired') ? { object: 'list', data: [{ code: `bedrock_${bedrockStatus.toLowerCase()}`, message, param: null, line: null }] } : null,
    // the input object is named after the gateway's file id (s3.ts)
    input_file_id: input ? lastPart(input).replace(/\.jsonl$/, '') : null,
    completion_window: '24h',
    status,
    output_file_id: status === 'completed' ? (outputUriOf(job) ?? null) : null,
    error_file_id: null,
    created_at: seconds(job.submitTime) ?? Math.floor(Date.now() / 1000),
    in_progress_at: null,
    expires_at: seconds(job.jobExpirationTime),
    finalizing_at: null,
    completed_at: status === 'completed' ? ended : null,
    failed_at: status === 'failed' ? ended : null,
    expired_at: status === 'expired' ? ended : null,
    cancelling_at: null,
    cancelled_at: status === 'cancelled' ? ended : null,
    request_counts: { total: count('totalRecordCount'), completed: count('successRecordCount'), failed: count('errorRecordCount') },
    metadata: null,
    bedrock_job_arn: arn,
    bedrock_status: bedrockStatus,
  };
}

/** One Bedrock output record as OpenAI's batch output line; a record that failed keeps its error, as OpenAI's do. */
function outputLine(textLine: string, line: number): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(textLine);
  } catch {
    return JSON.stringify({ id: `batch_req_${line}`, custom_id: null, response: null, error: { code: 'invalid_output_line', message: `Output line ${line} is not JSON.` } });
  }
  const output = record(parsed);
  const customId = text(output.recordId) ?? null;
  const id = `batch_req_${line}`;
  const failure = record(output.error);
  if (output.modelOutput === undefined || Object.keys(failure).length > 0) {
    const code = failure.errorCode === undefined ? 'bedrock_error' : String(failure.errorCode);
    return JSON.stringify({ id, custom_id: customId, response: null, error: { code, message: text(failure.errorMessage) ?? 'The record has no model output.' } });
  }
  try {
    const body = fromAnthropicMessage(output.modelOutput, { strictReferenceCompliance: true, provider: 'bedrock' });
    return JSON.stringify({ id, custom_id: customId, response: { status_code: 200, request_id: null, body }, error: null });
  } catch (error) {
    return JSON.stringify({ id, custom_id: customId, response: null, error: { code: 'invalid_model_output', message: (error as Error).message } });
  }
}

/** Bedrock's output JSONL -> OpenAI's, line by line as it streams from S3. */
export function createOutputTranslator(): Transform {
  return jsonlTransform(outputLine);
}
