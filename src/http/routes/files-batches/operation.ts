/**
 * The shape every files, batches and fine-tuning route shares: the scope check, the provider's selection (the
 * record's saved provider when the request names none), one upstream call, and the answer in OpenAI's shape.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireScope } from '../../../auth/authorize.ts';
import type { Principal } from '../../../core/context.ts';
import { badRequest, invalidParam, notFound } from '../../../core/errors.ts';
import { withBody } from '../../../core/inference-call.ts';
import { ownerOf, type Owner } from '../../../domain/files-batches/owner.ts';
import { clientPathProblem, describeProblem } from '../../../pipeline/path-rules.ts';
import type { ResourceOperation, StoredUpload } from '../../../providers/contract.ts';
import type { Database } from '../../../storage/database.ts';
import type { ForwardDeps } from '../../forward.ts';
import { withoutGatewayOptions } from './batch-body.ts';
import { callOf, resolveResource, type ResolvedResource } from './resolve.ts';
import { customCall, listData, openAiObject, readJsonAnswer, refuseUnsupported, sendJson, sendResource, type Upload } from './upstream.ts';

export interface ResourceDeps extends ForwardDeps {
  database: Database;
  now: () => Date;
}

/** What inference needs: these routes spend the provider account's money and quota the same way. */
export const DATA_PLANE_SCOPE = 'completions.write';

/**
 * The path as the pass-through refuses it (routes/proxy.ts): the router matched the decoded path, so a prefix
 * sent percent-encoded, or an id holding an encoded separator or dot segment, is refused before anything else.
 */
function refuseOddPath(request: FastifyRequest): void {
  const url = request.raw.url ?? '';
  if (!url.startsWith('/v1/')) throw badRequest('The path must start with /v1/ as plain characters, not percent-encoded.', 'invalid_path', 'path');
  const end = url.indexOf('?');
  const problem = clientPathProblem(url.slice(3, end >= 0 ? end : undefined));
  if (problem) throw invalidParam('path', `The path must not contain ${describeProblem(problem)}.`, 'invalid_path');
}

export function callerOf(request: FastifyRequest): Principal {
  refuseOddPath(request);
  const principal = request.principal!;
  requireScope(principal, DATA_PLANE_SCOPE);
  return principal;
}

export function ownerFor(resolved: ResolvedResource): Owner {
  return ownerOf(resolved.principal, resolved.adapter.name, resolved.savedProvider);
}

/** The record's provider, the only one that knows the object: another one named by the request finds nothing. */
export function requireRecordProvider(resolved: ResolvedResource, record: { provider: string }, what: string, id: string): void {
  if (resolved.adapter.name !== record.provider) {
    throw notFound(`No ${what} "${id.slice(0, 200)}" at provider "${resolved.adapter.name}" in this workspace: it was created at "${record.provider}".`, 'provider_mismatch');
  }
}

export interface OperationSpec {
  operation: ResourceOperation;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** a create's JSON body (the adapter's requestBody hook may rewrite it for its provider) */
  body?: Record<string, unknown>;
  upload?: Upload;
  /** the saved provider to use when the request names none */
  fallbackSlug?: string | null | undefined;
  /** refuses a provider that is not the record's, after resolution */
  check?: (resolved: ResolvedResource) => void;
  /** what a provider's own call needs of the object (its id, its record's location) */
  input?: { id?: string; location?: string | null };
}

export interface OperationResult {
  resolved: ResolvedResource;
  json: Record<string, unknown>;
  /** the answer carried no object (a provider's cancel): read it again with the retrieve operation */
  reread: boolean;
  /** where the provider keeps an upload the adapter stored itself */
  location: string | undefined;
}

/**
 * An upload the provider takes in another form than OpenAI's multipart (its `upload` hook): translated and stored
 * first, then sent by the provider's own call. A refused upload has the rest of its body read and dropped, so that
 * the client gets the 400 rather than a broken connection.
 */
async function storedUpload(request: FastifyRequest, resolved: ResolvedResource, operation: ResourceOperation, upload: Upload): Promise<StoredUpload | undefined> {
  const hook = resolved.adapter.resources?.upload;
  if (!hook) return undefined;
  refuseUnsupported(resolved, operation);
  try {
    return await hook({ stream: upload.stream, contentType: upload.contentType }, { workspaceId: resolved.principal.workspaceId }, resolved.target);
  } catch (error) {
    request.raw.resume();
    throw error;
  }
}

/** Resolves, sends and reads one JSON operation; undefined when the provider's answer went back as it came. */
export async function jsonOperation(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ResourceDeps,
  spec: OperationSpec,
): Promise<OperationResult | undefined> {
  const rawBody = spec.body ? Buffer.from(JSON.stringify(spec.body)) : undefined;
  const contentType = spec.upload ? spec.upload.contentType : spec.body ? 'application/json' : undefined;
  const call = callOf(request, { method: spec.method, path: spec.path, body: spec.body, rawBody, contentType });
  const resolved = await resolveResource(request, reply, call, deps, spec.fallbackSlug);
  spec.check?.(resolved);
  if (spec.body) {
    // the adapter's hook reads gateway_options (a bucket, a model); the provider never gets them
    const hook = resolved.adapter.resources?.requestBody;
    const body = resolved.call.body as Record<string, unknown>;
    resolved.call = withBody(resolved.call, withoutGatewayOptions(hook ? hook(spec.operation, body, resolved.target) : body));
  }
  const stored = spec.upload ? await storedUpload(request, resolved, spec.operation, spec.upload) : undefined;
  try {
    const body = resolved.call.body;
    const input = { ...spec.input, ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? { body: body as Record<string, unknown> } : {}) };
    const custom = stored ? stored.call : customCall(resolved, spec.operation, input);
    const upload = stored ? { stream: stored.body, contentType: 'application/jsonl', length: String(stored.length) } : spec.upload;
    const attempt = await sendResource(request, reply, resolved, spec.operation, deps, upload, custom);
    const answer = await readJsonAnswer(reply, resolved, attempt, custom);
    return answer.ok ? { resolved, json: answer.json, reread: custom?.reread === true, location: stored?.location } : undefined;
  } finally {
    if (stored) {
      stored.body.destroy();
      await stored.dispose();
    }
  }
}

/** A list operation: each entry in OpenAI's shape, cut down to the workspace's own (scope-list.ts). */
export async function listOperation(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ResourceDeps,
  spec: OperationSpec,
  scope: (resolved: ResolvedResource, list: Record<string, unknown>, data: Array<Record<string, unknown>>) => Promise<Record<string, unknown>>,
): Promise<void> {
  const done = await jsonOperation(request, reply, deps, spec);
  if (!done) return;
  const data = listData(done.json).map((entry) => openAiObject(done.resolved, spec.operation, entry));
  await sendJson(reply, await scope(done.resolved, done.json, data));
}

/** An id path segment, encoded: the id is the provider's, and nothing in it may reach another path. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
