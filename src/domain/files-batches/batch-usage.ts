/**
 * The usage of a batch's output, read line by line as the output streams to the client: each line is one request's
 * result, `{custom_id, response: {status_code, body: {model, usage}}, error}` (https://platform.openai.com/docs/api-reference/batch/request-output).
 * Only the current line is held; a line longer than MAX_LINE_BYTES is skipped rather than held.
 */
import { usageOf, type TokenUsage } from '../../logging/usage.ts';

const MAX_LINE_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

export interface BatchUsage {
  /** the summed token counts; undefined when no line reported usage */
  usage: TokenUsage | undefined;
  /** the models the lines name (the batch is priced when there is exactly one) */
  models: ReadonlySet<string>;
  /** result lines read */
  lines: number;
}

function add(sum: number | undefined, value: number | undefined): number | undefined {
  return value === undefined ? sum : (sum ?? 0) + value;
}

function addUsage(sum: TokenUsage | undefined, line: TokenUsage): TokenUsage {
  if (!sum) return { ...line };
  const total: TokenUsage = { prompt: add(sum.prompt, line.prompt), completion: add(sum.completion, line.completion), total: add(sum.total, line.total) };
  const cached = add(sum.cached, line.cached);
  const cacheWrite = add(sum.cacheWrite, line.cacheWrite);
  const reasoning = add(sum.reasoning, line.reasoning);
  if (cached !== undefined) total.cached = cached;
  if (cacheWrite !== undefined) total.cacheWrite = cacheWrite;
  if (reasoning !== undefined) total.reasoning = reasoning;
  return total;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function createBatchUsageReader() {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  let usage: TokenUsage | undefined;
  const models = new Set<string>();
  let lines = 0;

  const readLine = (line: Buffer) => {
    if (line.length === 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.toString('utf8'));
    } catch {
      return;
    }
    lines += 1;
    const body = record(record(record(parsed)?.response)?.body);
    const counted = usageOf(body?.usage);
    if (counted) usage = addUsage(usage, counted);
    if (typeof body?.model === 'string') models.add(body.model);
  };

  return {
    push(chunk: Buffer): void {
      let start = 0;
      for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, at);
        if (!skipping) readLine(pending.length > 0 ? Buffer.concat([...pending, piece]) : piece);
        pending = [];
        pendingBytes = 0;
        skipping = false;
        start = at + 1;
      }
      if (start < chunk.length && !skipping) {
        pendingBytes += chunk.length - start;
        if (pendingBytes > MAX_LINE_BYTES) {
          skipping = true;
          pending = [];
        } else pending.push(chunk.subarray(start));
      }
    },
    end(): BatchUsage {
      if (!skipping && pending.length > 0) readLine(Buffer.concat(pending));
      pending = [];
      return { usage, models, lines };
    },
  };
}
