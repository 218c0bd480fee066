/**
 * The log record step: what the pipeline did, noted on the request's record with property writes and reads of the
 * parsed answer only (the request-log hook turns the record into a row when the response closes; text is parsed
 * there, after the answer has gone).
 */
import { finishReasonsOf } from '../../logging/finish-reasons.ts';
import { noteCachedAnswer, noteErrorBody, noteOutputVerdicts, noteResponse, type RequestRecord } from '../../logging/request-record.ts';
import type { Outcome } from '../outcome.ts';
import { answerUsage } from './usage.ts';

function stringField(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const field = (value as Record<string, unknown>)[name];
  return typeof field === 'string' ? field : undefined;
}

/** Each attempt as it starts: a request that fails on its way (a timeout, garbage) still names where it went. */
export function noteAttempt(record: RequestRecord | undefined, provider: string, body: unknown): void {
  if (!record) return;
  record.provider = provider;
  record.model = stringField(body, 'model') ?? record.model;
  const choices = typeof body === 'object' && body !== null ? (body as { n?: unknown }).n : undefined;
  record.manyChoices = typeof choices === 'number' && choices > 1;
}

export function noteOutcome(record: RequestRecord | undefined, outcome: Outcome): void {
  if (!record) return;
  record.provider = outcome.adapter.name;
  record.model = stringField(outcome.call.body, 'model') ?? record.model;
  record.cacheStatus = outcome.cacheStatus;
  record.retries = outcome.retries;
  record.optionPath = outcome.optionPath;
  if (outcome.input.length > 0) record.inputVerdicts = outcome.input;
  if (outcome.savedConfig) {
    record.configId = outcome.savedConfig.id;
    record.configVersionId = outcome.savedConfig.versionId;
  }
  const { answer } = outcome;
  record.usage = answerUsage(answer) ?? record.usage;
  if (answer.kind === 'json') {
    record.answerModel ??= stringField(answer.canonical, 'model');
    record.finishReasons = finishReasonsOf(answer.canonical);
    noteResponse(record, answer.unchanged ? { kind: 'text', text: answer.text } : { kind: 'object', value: answer.canonical });
  }
  if (answer.kind === 'cached') noteCachedAnswer(record, answer.cached.body);
  if (answer.kind === 'provider-error') {
    noteErrorBody(record, answer.body);
    noteResponse(record, { kind: 'object', value: answer.body });
  }
  if (outcome.output) noteOutputVerdicts(record, outcome.output.outcome.results);
}
