/**
 * /v1/batches: create, list, retrieve, cancel (https://platform.openai.com/docs/api-reference/batch), and the
 * gateway's GET /v1/batches/{id}/output: the batch's output file streamed as JSONL, its usage counted once
 * (content.ts). A batch's input file must be one of the workspace's files.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../../../core/errors.ts';
import { ownedBatch, ownedFile } from '../../../domain/files-batches/find-owned.ts';
import { refreshBatch, rememberBatch } from '../../../domain/files-batches/remember.ts';
import { scopeList } from '../../../domain/files-batches/scope-list.ts';
import { parseBatchCreate } from './batch-body.ts';
import { relayContent } from './content.ts';
import { callerOf, jsonOperation, listOperation, ownerFor, requireRecordProvider, segment, type ResourceDeps } from './operation.ts';
import type { ResolvedResource } from './resolve.ts';
import { openAiObject, sendJson } from './upstream.ts';

type BatchParams = { Params: { batch_id: string } };
const config = { routeKind: 'passthrough' as const };

async function create(request: FastifyRequest, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  const parsed = parseBatchCreate(request.body);
  const input = await ownedFile(deps.database.db, principal, parsed.inputFileId);
  const check = (resolved: ResolvedResource) => requireRecordProvider(resolved, input, 'file', parsed.inputFileId);
  const fallbackSlug = parsed.savedProvider ?? input.providerSlug;
  const done = await jsonOperation(request, reply, deps, { operation: 'batches.create', method: 'POST', path: '/batches', body: parsed.body, fallbackSlug, check, input: { location: input.location } });
  if (!done) return;
  const batch = openAiObject(done.resolved, 'batches.create', done.json);
  await rememberBatch(deps.database.db, ownerFor(done.resolved), batch);
  await sendJson(reply, batch);
}

async function list(request: FastifyRequest, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  await listOperation(request, reply, deps, { operation: 'batches.list', method: 'GET', path: '/batches' }, (resolved, json, data) =>
    scopeList(deps.database.db, 'batch', principal, resolved.adapter.name, json, data),
  );
}

/** retrieve and cancel: the provider's batch, and the record refreshed from it */
async function one(request: FastifyRequest<BatchParams>, reply: FastifyReply, deps: ResourceDeps, cancel: boolean): Promise<void> {
  const principal = callerOf(request);
  const id = request.params.batch_id;
  const row = await ownedBatch(deps.database.db, principal, id);
  const operation = cancel ? 'batches.cancel' : 'batches.retrieve';
  const path = `/batches/${segment(id)}${cancel ? '/cancel' : ''}`;
  const check = (resolved: ResolvedResource) => requireRecordProvider(resolved, row, 'batch', id);
  const spec = { fallbackSlug: row.providerSlug, check, input: { id } };
  let done = await jsonOperation(request, reply, deps, { ...spec, operation, method: cancel ? 'POST' : 'GET', path });
  // a provider whose cancel answers nothing (Bedrock's stop) is asked for the batch afterwards
  if (done?.reread) done = await jsonOperation(request, reply, deps, { ...spec, operation: 'batches.retrieve', method: 'GET', path: `/batches/${segment(id)}` });
  if (!done) return;
  const batch = openAiObject(done.resolved, operation, done.json);
  await refreshBatch(deps.database.db, row, batch);
  await sendJson(reply, batch);
}

/** The output file of a finished batch, asked of the provider first: the record may predate its completion. */
async function output(request: FastifyRequest<BatchParams>, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  const id = request.params.batch_id;
  const row = await ownedBatch(deps.database.db, principal, id);
  const check = (resolved: ResolvedResource) => requireRecordProvider(resolved, row, 'batch', id);
  const done = await jsonOperation(request, reply, deps, { operation: 'batches.retrieve', method: 'GET', path: `/batches/${segment(id)}`, fallbackSlug: row.providerSlug, check, input: { id } });
  if (!done) return;
  const batch = openAiObject(done.resolved, 'batches.retrieve', done.json);
  await refreshBatch(deps.database.db, row, batch);
  const outputFileId = batch.output_file_id;
  if (typeof outputFileId !== 'string' || outputFileId.length === 0) {
    throw badRequest(`Batch "${id}" has no output yet (status ${String(batch.status)}).`, 'batch_output_not_ready', 'batch_id');
  }
  const withOutput = { ...row, outputFileId };
  // the same call's second upstream request: its record tries are both noted
  await relayContent(request, reply, deps, { operation: 'batches.output', fileId: outputFileId, provider: row.provider, fallbackSlug: row.providerSlug, batch: withOutput });
}

export function registerBatchRoutes(app: FastifyInstance, deps: ResourceDeps): void {
  app.post('/v1/batches', { config }, (request, reply) => create(request, reply, deps));
  app.get('/v1/batches', { config }, (request, reply) => list(request, reply, deps));
  app.get<BatchParams>('/v1/batches/:batch_id', { config }, (request, reply) => one(request, reply, deps, false));
  app.post<BatchParams>('/v1/batches/:batch_id/cancel', { config }, (request, reply) => one(request, reply, deps, true));
  app.get<BatchParams>('/v1/batches/:batch_id/output', { config }, (request, reply) => output(request, reply, deps));
}
