/**
 * Token counts for the request log, from an answer's `usage` (the canonical OpenAI shape; the Responses API's
 * input/output names too). An unknown count stays undefined, never 0. For text that is not parsed whole (a cached
 * answer, the tail of a relayed stream) only the last `"usage": {...}` object is cut out and parsed.
 *
 * The detail counts are set only when the answer reports them: cached input tokens (OpenAI's
 * prompt_tokens_details.cached_tokens, which the Anthropic, Bedrock and Google adapters fill from their cache reads),
 * input tokens written to the prompt cache (prompt_tokens_details.cache_creation_tokens, Anthropic's and Bedrock's
 * cache writes; Anthropic's own cache_creation_input_tokens on a pass-through answer), and reasoning tokens
 * (completion_tokens_details.reasoning_tokens). The cost (src/pricing/cost.ts) charges each kind at its price.
 */
export interface TokenUsage {
  prompt: number | undefined;
  completion: number | undefined;
  total: number | undefined;
  /** cached input tokens read, part of prompt */
  cached?: number;
  /** input tokens written to the prompt cache, part of prompt */
  cacheWrite?: number;
  /** reasoning tokens, part of completion */
  reasoning?: number;
}

/** bytes of a relayed stream's end kept for its usage: the final usage chunk is a few hundred bytes */
export const STREAM_TAIL_BYTES = 4096;

function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 2 ** 31 ? value : undefined;
}

function detail(fields: Record<string, unknown>, objects: readonly string[], name: string): number | undefined {
  for (const key of objects) {
    const object = fields[key];
    if (typeof object !== 'object' || object === null) continue;
    const count = tokenCount((object as Record<string, unknown>)[name]);
    if (count !== undefined) return count;
  }
  return undefined;
}

export function usageOf(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return undefined;
  const fields = usage as Record<string, unknown>;
  let prompt = tokenCount(fields.prompt_tokens ?? fields.input_tokens);
  const completion = tokenCount(fields.completion_tokens ?? fields.output_tokens);
  // Anthropic's own usage (a pass-through answer) counts cache reads and writes apart from input_tokens
  const anthropicRead = fields.prompt_tokens === undefined ? tokenCount(fields.cache_read_input_tokens) : undefined;
  const anthropicWrite = fields.prompt_tokens === undefined ? tokenCount(fields.cache_creation_input_tokens) : undefined;
  if (prompt !== undefined && (anthropicRead !== undefined || anthropicWrite !== undefined)) prompt += (anthropicRead ?? 0) + (anthropicWrite ?? 0);
  let total = tokenCount(fields.total_tokens);
  if (total === undefined && prompt !== undefined && completion !== undefined) total = prompt + completion;
  if (prompt === undefined && completion === undefined && total === undefined) return undefined;
  const counted: TokenUsage = { prompt, completion, total };
  // prompt_cache_hit_tokens: DeepSeek's name for cached input, on an answer passed through as it came
  const cached = detail(fields, ['prompt_tokens_details', 'input_tokens_details'], 'cached_tokens') ?? anthropicRead ?? tokenCount(fields.prompt_cache_hit_tokens);
  const cacheWrite = detail(fields, ['prompt_tokens_details', 'input_tokens_details'], 'cache_creation_tokens') ?? anthropicWrite;
  const reasoning = detail(fields, ['completion_tokens_details', 'output_tokens_details'], 'reasoning_tokens');
  if (cached !== undefined) counted.cached = cached;
  if (cacheWrite !== undefined) counted.cacheWrite = cacheWrite;
  if (reasoning !== undefined) counted.reasoning = reasoning;
  return counted;
}

/** The balanced `{...}` starting at `start`, strings respected; undefined when the text ends first. */
function objectAt(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92) index += 1; // backslash: skip the escaped character
      else if (code === 34) inString = false;
      continue;
    }
    if (code === 34) inString = true;
    else if (code === 123) depth += 1;
    else if (code === 125) {
      depth -= 1;
      if (depth === 0) return text.slice(start, index + 1);
    }
  }
  return undefined;
}

const KEY = '"usage"';

/** The last `"usage": {...}` in JSON text (a `"usage": null` of an earlier chunk is skipped). */
export function usageInText(text: string): TokenUsage | undefined {
  let from = text.length;
  // a few tries: chunks before the last carry `"usage":null` when the client asked for usage
  for (let tries = 0; tries < 4 && from > 0; tries += 1) {
    const at = text.lastIndexOf(KEY, from - 1);
    if (at < 0) return undefined;
    from = at;
    // \"usage\" inside a string value is not the key
    if (at > 0 && text.charCodeAt(at - 1) === 92) continue;
    let index = at + KEY.length;
    while (index < text.length && (text[index] === ' ' || text[index] === ':' || text[index] === '\n' || text[index] === '\t')) index += 1;
    if (text[index] !== '{') continue;
    const object = objectAt(text, index);
    if (object === undefined) return undefined;
    try {
      return usageOf(JSON.parse(object));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The last bytes of a relayed stream as text: its last two chunks, as received, never the whole stream. */
export function streamTailText(previous: Buffer | undefined, last: Buffer | undefined): string | undefined {
  if (!last) return undefined;
  let tail = last;
  if (previous && last.length < STREAM_TAIL_BYTES) tail = Buffer.concat([previous.subarray(Math.max(0, previous.length - STREAM_TAIL_BYTES + last.length)), last]);
  if (tail.length > STREAM_TAIL_BYTES) tail = tail.subarray(tail.length - STREAM_TAIL_BYTES);
  return tail.toString('utf8');
}
