/**
 * Guardrails in the request pipeline. A config lists them as `input_guardrails` / `output_guardrails`, each either
 * an inline hook (`{checks: [...], deny}`, or the short form `{"default.contains": {...}, "deny": true}`) or the id
 * of a saved guardrail. A hook whose checks fail DENIES the request (status 446, verdicts in `hook_results`) when it
 * says `deny`; otherwise the request goes on and the verdicts are reported (`x-gateway-guardrails: failed`,
 * `hook_results` in the answer). PII checks with `redact` rewrite the checked text before it goes upstream.
 */
import { GatewayError, invalidParam, notImplemented } from '../core/errors.ts';
import type { Guardrail } from './types.ts';
import type { CheckRegistry } from './registry.ts';
import { runChecks } from './run.ts';
import type { CheckConfig, CheckContext, Verdict } from './types.ts';

export const GUARDRAIL_DENIED_STATUS = 446;
/** A failing hook without deny: the answer stands (a 2xx), but retry and fallback settings may name this status. */
export const GUARDRAIL_FAILED_STATUS = 246;

export interface GuardrailHook {
  id: string | undefined;
  checks: CheckConfig[];
  deny: boolean;
}

export interface HookResult {
  id: string | undefined;
  verdict: boolean;
  deny: boolean;
  checks: Verdict[];
}

export interface HooksOutcome {
  results: HookResult[];
  passed: boolean;
  denied: boolean;
  redactedText: string | undefined;
}

const HOOK_FIELDS = new Set(['id', 'deny', 'async', 'on_fail', 'on_success', 'type', 'name', 'event_type', 'sequential']);

/** A saved guardrail by id or slug, as the calling workspace may use it; undefined when there is none. */
export type SavedGuardrailLookup = (idOrSlug: string) => Promise<GuardrailHook | undefined>;

/** The hooks of a guardrail list: inline ones as given, saved ones looked up (unknown: a 400 naming the entry). */
export async function resolveHooks(list: readonly Guardrail[] | undefined, path: string, lookup: SavedGuardrailLookup | undefined): Promise<GuardrailHook[]> {
  const hooks: GuardrailHook[] = [];
  for (const [index, entry] of (list ?? []).entries()) {
    if (typeof entry !== 'string') {
      hooks.push(toHook(entry, `${path}[${index}]`));
      continue;
    }
    if (!lookup) throw notImplemented('Saved guardrails cannot be resolved here.', 'guardrail_not_supported');
    const saved = await lookup(entry);
    if (!saved) throw invalidParam(`${path}[${index}]`, `Guardrail "${entry}" not found.`, 'guardrail_not_found');
    hooks.push(saved);
  }
  return hooks;
}

function toHook(entry: Exclude<Guardrail, string>, where: string): GuardrailHook {
  const hook = entry as Record<string, unknown>;
  const deny = hook.deny === true;
  const id = typeof hook.id === 'string' ? hook.id : undefined;
  if (Array.isArray(hook.checks)) return { id, checks: hook.checks as CheckConfig[], deny };
  const checks = Object.entries(hook)
    .filter(([key]) => !HOOK_FIELDS.has(key))
    .map(([key, parameters]) => ({ id: key, parameters: parameters as Record<string, unknown> }));
  if (checks.length === 0) throw invalidParam(where, `${where} names no check.`);
  return { id, checks, deny };
}

/** Text parts: chat's `text`, the Responses API's `input_text` and `output_text`. */
const TEXT_PARTS: ReadonlySet<unknown> = new Set(['text', 'input_text', 'output_text']);

function isTextPart(part: unknown): boolean {
  return typeof part === 'object' && part !== null && TEXT_PARTS.has((part as { type?: unknown }).type);
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isTextPart)
    .map((part) => String((part as { text?: unknown }).text ?? ''))
    .join('\n');
}

/** The index of the last user turn of a message (or Responses input item) list; -1 when none. */
function lastUserIndex(items: readonly unknown[]): number {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    if ((items[index] as { role?: unknown } | null)?.role === 'user') return index;
  }
  return -1;
}

/** The text an input guardrail checks: the last user message, or the completion prompt, or the embedding input. */
export function inputText(body: unknown): string {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (Array.isArray(record.messages)) {
    const last = record.messages[lastUserIndex(record.messages)];
    return partsText((last as { content?: unknown } | undefined)?.content);
  }
  // the Responses API: input items, the last user message's text
  if (Array.isArray(record.input) && record.input.some((item) => typeof item === 'object' && item !== null)) {
    const last = record.input[lastUserIndex(record.input)];
    return partsText((last as { content?: unknown } | undefined)?.content);
  }
  const prompt = record.prompt ?? record.input ?? record.query;
  if (typeof prompt === 'string') return prompt;
  return Array.isArray(prompt) ? prompt.filter((item) => typeof item === 'string').join('\n') : '';
}

/** The same body with the last user message's text replaced (redaction); other bodies replace the prompt. */
export function withInputText(body: Record<string, unknown>, text: string): Record<string, unknown> {
  for (const field of ['messages', 'input'] as const) {
    const items = body[field];
    if (!Array.isArray(items) || (field === 'input' && !items.some((item) => typeof item === 'object' && item !== null))) continue;
    const at = lastUserIndex(items);
    if (at < 0) return body;
    const copy = [...items];
    const message = copy[at] as { content?: unknown };
    copy[at] = { ...message, content: Array.isArray(message.content) ? withTextParts(message.content, text) : text };
    return { ...body, [field]: copy };
  }
  if (typeof body.prompt === 'string') return { ...body, prompt: text };
  if (typeof body.input === 'string') return { ...body, input: text };
  return body;
}

/**
 * A content array with its text parts replaced by `text` (in the first text part's place); images, tool results
 * and other parts are kept as they were.
 */
function withTextParts(parts: readonly unknown[], text: string): unknown[] {
  const out: unknown[] = [];
  let placed = false;
  for (const part of parts) {
    if (!isTextPart(part)) {
      out.push(part);
    } else if (!placed) {
      out.push({ ...(part as object), text });
      placed = true;
    }
  }
  if (!placed) out.push({ type: 'text', text });
  return out;
}

/** The answer text an output guardrail checks: the first choice's message (or text). */
export function outputText(answer: unknown): string {
  const response = answer as { object?: unknown; output?: unknown } | null;
  if (response?.object === 'response' && Array.isArray(response.output)) {
    // a Response: the text of its message items
    return response.output
      .filter((item) => (item as { type?: unknown } | null)?.type === 'message')
      .map((item) => partsText((item as { content?: unknown }).content))
      .join('\n');
  }
  const choices = (answer as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) return '';
  const first = choices[0] as { message?: { content?: unknown }; text?: unknown };
  return first.message ? partsText(first.message.content) : typeof first.text === 'string' ? first.text : '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function runHooks(
  hooks: readonly GuardrailHook[],
  context: Omit<CheckContext, 'json'>,
  registry: CheckRegistry,
  signal?: AbortSignal,
): Promise<HooksOutcome> {
  let text = context.text;
  let redacted = false;
  const results: HookResult[] = [];
  // hooks run in order, so a later one sees an earlier one's redaction
  for (const hook of hooks) {
    const outcome = await runChecks(hook.checks, { ...context, text, json: parseJson(text) }, { registry, ...(signal ? { signal } : {}) });
    if (outcome.redactedText !== undefined) {
      text = outcome.redactedText;
      redacted = true;
    }
    results.push({ id: hook.id, verdict: outcome.passed, deny: hook.deny, checks: outcome.verdicts });
  }
  return {
    results,
    passed: results.every((result) => result.verdict),
    denied: results.some((result) => !result.verdict && result.deny),
    redactedText: redacted ? text : undefined,
  };
}

export function guardrailDenied(phase: 'input' | 'output', results: HookResult[]): GatewayError {
  const key = phase === 'input' ? 'before_request_hooks' : 'after_request_hooks';
  return new GatewayError(GUARDRAIL_DENIED_STATUS, 'guardrail_error', `The ${phase} guardrails denied the request.`, {
    code: `${phase}_guardrail_denied`,
    extra: { hook_results: { [key]: results } },
  });
}
