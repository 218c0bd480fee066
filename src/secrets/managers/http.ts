/**
 * The one way a secret manager is called. Every URL is an outbound destination chosen by configuration (a Vault
 * address, a Key Vault URL, an AWS endpoint), so it gets the treatment of x-gateway-custom-host: `checkCustomHost`
 * before connecting and `guardedLookup` at connect time (a name that re-resolves to an internal address after the
 * check is refused). Redirects are not followed. Answers are read into memory, capped, and never logged.
 */
import { Agent, request } from 'undici';
import { isGatewayError } from '../../core/errors.ts';
import { CUSTOM_HOST_BLOCKED_CODE, checkCustomHost, guardedLookup, type Allowlist, type LookupAll } from '../../upstream/ssrf-guard.ts';
import { managerBlocked, managerUnreachable, secretUnavailable, type ReferenceLabel } from './errors.ts';

export interface ManagerRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ManagerAnswer {
  status: number;
  text: string;
}

/** Who is being called, for the messages: the reference, the manager's name, the auth_config field of the URL. */
export interface ManagerTarget {
  label: ReferenceLabel;
  manager: string;
  field: string;
}

export interface ManagerHttp {
  send(request: ManagerRequest, target: ManagerTarget): Promise<ManagerAnswer>;
  close(): Promise<void>;
}

export interface ManagerHttpOptions {
  allowlist: Allowlist;
  /** the guard's DNS lookup (tests inject one) */
  lookup?: LookupAll;
  timeoutMs?: number;
}

/** AWS allows 64 KiB per secret, Azure 25 KiB: an answer far larger is not a secret manager's. */
const MAX_ANSWER_BYTES = 256 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

async function readCapped(body: AsyncIterable<Buffer>, target: ManagerTarget): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) throw secretUnavailable(target.label, `${target.manager} answered with more than ${MAX_ANSWER_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createManagerHttp(options: ManagerHttpOptions): ManagerHttp {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { lookup: guardedLookup(options.allowlist) },
  });
  return {
    async send(outgoing, target) {
      try {
        await checkCustomHost(outgoing.url, options.allowlist, options.lookup);
      } catch (error) {
        if (!isGatewayError(error)) throw error;
        throw managerBlocked(target.label, target.field, error.message);
      }
      try {
        const response = await request(outgoing.url, {
          method: outgoing.method,
          headers: outgoing.headers,
          body: outgoing.body ?? null,
          dispatcher: agent,
          signal: AbortSignal.timeout(timeoutMs),
        });
        return { status: response.statusCode, text: await readCapped(response.body, target) };
      } catch (error) {
        if (isGatewayError(error)) throw error;
        if ((error as { code?: unknown }).code === CUSTOM_HOST_BLOCKED_CODE) {
          throw managerBlocked(target.label, target.field, 'it resolves to an address that is not allowed.');
        }
        throw managerUnreachable(target.label, target.manager, (error as Error).message);
      }
    },
    close: () => agent.close(),
  };
}

/** A JSON object from an answer's text, or undefined (an error page, an empty body). */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
