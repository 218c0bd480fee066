/**
 * default.webhook: POSTs `{ request, response, eventType }` as JSON to an operator-configured URL and expects
 * `{ verdict: boolean, explanation?: string }` back.
 *
 * Fail closed: a timeout, a refused or unreachable host, a non-2xx status (redirects are not followed, so 3xx
 * too), an oversized body or an answer without a boolean `verdict` all yield verdict false. The vendor's
 * `failOnError` parameter is accepted so existing configs validate, but it cannot turn failures into passes:
 * a guardrail that silently opens whenever its backend is down is no guardrail.
 *
 * The URL is an outbound destination chosen by configuration, so it gets the same SSRF treatment as
 * x-gateway-custom-host: `checkCustomHost` before connecting and `guardedLookup` at connect time.
 */
import { Type } from '@sinclair/typebox';
import { Agent, request } from 'undici';
import { isGatewayError } from '../../core/errors.ts';
import {
  CUSTOM_HOST_BLOCKED_CODE,
  checkCustomHost,
  guardedLookup,
  type Allowlist,
  type LookupAll,
} from '../../upstream/ssrf-guard.ts';
import { ParameterSchema, definePreparedCheck, invalidParameter, type RegisteredCheck } from '../define.ts';
import type { CheckContext, CheckOptions, CheckResult } from '../types.ts';

export const WEBHOOK_DEFAULT_TIMEOUT_MS = 3000;
export const WEBHOOK_MAX_TIMEOUT_MS = 30_000;
/** A verdict is a few hundred bytes; anything far larger is a misbehaving endpoint, not an answer. */
export const WEBHOOK_MAX_BODY_BYTES = 64 * 1024;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// framing and routing headers are the client library's job; letting a config set them would corrupt the request
const RESERVED_HEADERS = new Set([
  'host', 'content-length', 'content-type', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect',
  'te', 'trailer', 'proxy-connection',
]);

const WebhookParameters = ParameterSchema({
  webhookURL: Type.String({ minLength: 1, maxLength: 2048 }),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  timeout: Type.Optional(Type.Number({ minimum: 1, maximum: WEBHOOK_MAX_TIMEOUT_MS })),
  failOnError: Type.Optional(Type.Boolean()),
});

interface WebhookSettings {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

export interface WebhookCheckOptions {
  /** hosts and ranges the operator allows despite being internal (GATEWAY_CUSTOM_HOST_ALLOWLIST) */
  allowlist: Allowlist;
  /** DNS for the pre-connect check; defaults to the system resolver */
  lookup?: LookupAll;
  /** the resolver behind the connect-time guard; defaults to dns.lookup (tests inject one to simulate rebinding) */
  resolve?: Parameters<typeof guardedLookup>[1];
}

/** The check plus `close()`, which ends the keep-alive connections of its dispatcher. */
export type WebhookCheck = RegisteredCheck & { close(): Promise<void> };

export function eventTypeOf(context: CheckContext): 'beforeRequestHook' | 'afterRequestHook' {
  return context.phase === 'input' ? 'beforeRequestHook' : 'afterRequestHook';
}

const fail = (explanation: string, data?: unknown): CheckResult => ({ verdict: false, explanation, ...(data === undefined ? {} : { data }) });

/** The answer body as text, or null once it exceeds the cap (the rest is not read). */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > WEBHOOK_MAX_BODY_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseAnswer(text: string, status: number): CheckResult {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return fail('The webhook answer is not JSON.', { status });
  }
  if (typeof answer !== 'object' || answer === null || typeof (answer as { verdict?: unknown }).verdict !== 'boolean') {
    return fail('The webhook answer has no boolean verdict.', { status });
  }
  const { verdict, explanation } = answer as { verdict: boolean; explanation?: unknown };
  const message = typeof explanation === 'string' && explanation !== '' ? explanation.slice(0, 1000) : undefined;
  return { verdict, explanation: message ?? `The webhook ${verdict ? 'passed' : 'failed'} the check.`, data: { status } };
}

export function createWebhookCheck(options: WebhookCheckOptions): WebhookCheck {
  // one dispatcher per factory: keep-alive connections are reused across requests, and every new connection's
  // DNS answer is checked again (a name that re-resolves to an internal address after checkCustomHost is refused)
  const agent = new Agent({ keepAliveTimeout: 10_000, connect: { lookup: guardedLookup(options.allowlist, options.resolve) } });

  async function run(context: CheckContext, settings: WebhookSettings, checkOptions?: CheckOptions): Promise<CheckResult> {
    try {
      await checkCustomHost(settings.url, options.allowlist, options.lookup);
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      return fail(`The webhook URL is not allowed: ${error.message}`, { code: error.code });
    }
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    const signal = checkOptions?.signal ? AbortSignal.any([timeout, checkOptions.signal]) : timeout;
    try {
      const response = await request(settings.url, {
        method: 'POST',
        headers: { ...settings.headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ request: context.request, response: context.response, eventType: eventTypeOf(context) }),
        dispatcher: agent,
        signal,
      });
      if (response.statusCode < 200 || response.statusCode > 299) {
        await response.body.dump();
        return fail(`The webhook answered with status ${response.statusCode}.`, { status: response.statusCode });
      }
      const text = await readCapped(response.body);
      if (text === null) return fail(`The webhook answer exceeds ${WEBHOOK_MAX_BODY_BYTES} bytes.`, { status: response.statusCode });
      return parseAnswer(text, response.statusCode);
    } catch (error) {
      if (timeout.aborted) return fail(`The webhook did not answer within ${settings.timeoutMs} ms.`, { timeout: true });
      if (signal.aborted) return fail('The webhook call was aborted.');
      if ((error as { code?: unknown }).code === CUSTOM_HOST_BLOCKED_CODE) {
        return fail('The webhook host resolves to an address that is not allowed.', { code: 'custom_host_blocked' });
      }
      return fail(`The webhook could not be reached: ${(error as Error).message}`);
    }
  }

  const registered = definePreparedCheck(WebhookParameters, run, (parameters, path): WebhookSettings => {
    const url = URL.canParse(parameters.webhookURL) ? new URL(parameters.webhookURL) : null;
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw invalidParameter(`${path}.webhookURL`, 'must be an absolute http(s) URL');
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(parameters.headers ?? {})) {
      const param = `${path}.headers.${name}`;
      if (!HEADER_NAME.test(name)) throw invalidParameter(param, 'not a valid header name');
      if (RESERVED_HEADERS.has(name.toLowerCase())) throw invalidParameter(param, 'this header is set by the gateway');
      if (/[\r\n\0]/.test(value)) throw invalidParameter(param, 'header values must not contain CR, LF or NUL');
      headers[name.toLowerCase()] = value;
    }
    return { url: parameters.webhookURL, headers, timeoutMs: Math.ceil(parameters.timeout ?? WEBHOOK_DEFAULT_TIMEOUT_MS) };
  });

  return { ...registered, close: () => agent.close() };
}
