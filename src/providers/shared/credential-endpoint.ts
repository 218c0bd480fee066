/**
 * The one way an adapter calls a credential endpoint (an OAuth token endpoint, AWS STS) before the provider call.
 * Its URL may come from a stored setting or a header (a sovereign-cloud authority, a VPC STS endpoint), so it gets
 * the treatment of x-gateway-custom-host: `checkCustomHost` with the operator's allowlist before connecting and
 * `guardedLookup` at connect time (a name that re-resolves to an internal address after the check is refused).
 * Redirects are not followed; the answer is read into memory, capped, and never logged.
 */
import { Agent, request } from 'undici';
import { badGateway, invalidParam, isGatewayError } from '../../core/errors.ts';
import { CUSTOM_HOST_BLOCKED_CODE, checkCustomHost, guardedLookup, parseAllowlist } from '../../upstream/ssrf-guard.ts';
import type { PrepareContext } from '../contract.ts';

const TIMEOUT_MS = 15_000;
/** a token or an STS answer is a few KiB */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface CredentialCall {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** the setting (header) that chose the URL, for a refusal */
  param: string;
  /** what is called, for messages ("Microsoft Entra ID", "AWS STS") */
  service: string;
  /** the error code of an unreachable endpoint */
  failureCode: string;
}

export interface CredentialAnswer {
  status: number;
  text: string;
}

async function readCapped(body: AsyncIterable<Buffer>, call: CredentialCall): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) throw badGateway(`${call.service} answered with more than ${MAX_ANSWER_BYTES} bytes.`, call.failureCode);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** POSTs `body` to the checked URL and returns the answer whatever its status; the caller judges it. */
export async function postCredentialRequest(call: CredentialCall, context: PrepareContext | undefined): Promise<CredentialAnswer> {
  const allowlist = context?.allowlist ?? parseAllowlist([]);
  let url: URL;
  try {
    url = await checkCustomHost(call.url, allowlist, context?.lookup);
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    throw invalidParam(call.param, `The ${call.service} endpoint is not allowed: ${error.message}`, error.code ?? 'credential_endpoint_blocked');
  }
  // one short-lived dispatcher per fetch (at most one per credential and hour): its lookup refuses blocked
  // addresses at connect time
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(allowlist) }, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  try {
    const response = await request(url, {
      method: 'POST',
      headers: call.headers,
      body: call.body,
      // no client's signal: the fetch is shared by every caller waiting for the same credential (credential-cache.ts)
      dispatcher,
    });
    return { status: response.statusCode, text: await readCapped(response.body, call) };
  } catch (error) {
    if (isGatewayError(error)) throw error;
    if ((error as { code?: string }).code === CUSTOM_HOST_BLOCKED_CODE) {
      throw invalidParam(call.param, `The ${call.service} endpoint resolves to a blocked address.`, 'custom_host_blocked');
    }
    throw badGateway(`Could not reach ${call.service}: ${(error as Error).message}`, call.failureCode);
  } finally {
    void dispatcher.close();
  }
}
