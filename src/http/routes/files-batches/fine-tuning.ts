/**
 * /v1/fine_tuning/jobs: create, list, retrieve, cancel, events, checkpoints
 * (https://platform.openai.com/docs/api-reference/fine-tuning). The training (and validation) file must be one of
 * the workspace's files; events and checkpoints are read from the provider for a job the workspace created.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ownedFile, ownedFineTuningJob } from '../../../domain/files-batches/find-owned.ts';
import { refreshFineTuningJob, rememberFineTuningJob } from '../../../domain/files-batches/remember.ts';
import { scopeList } from '../../../domain/files-batches/scope-list.ts';
import type { ResourceOperation } from '../../../providers/contract.ts';
import { parseFineTuningCreate } from './batch-body.ts';
import { callerOf, jsonOperation, listOperation, ownerFor, requireRecordProvider, segment, type ResourceDeps } from './operation.ts';
import type { ResolvedResource } from './resolve.ts';
import { openAiObject, sendJson } from './upstream.ts';

type JobParams = { Params: { fine_tuning_job_id: string } };
const config = { routeKind: 'passthrough' as const };

async function create(request: FastifyRequest, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  const parsed = parseFineTuningCreate(request.body);
  const training = await ownedFile(deps.database.db, principal, parsed.trainingFile);
  if (parsed.validationFile !== undefined) await ownedFile(deps.database.db, principal, parsed.validationFile);
  const check = (resolved: ResolvedResource) => requireRecordProvider(resolved, training, 'file', parsed.trainingFile);
  const fallbackSlug = parsed.savedProvider ?? training.providerSlug;
  const done = await jsonOperation(request, reply, deps, { operation: 'fine_tuning.create', method: 'POST', path: '/fine_tuning/jobs', body: parsed.body, fallbackSlug, check });
  if (!done) return;
  const job = openAiObject(done.resolved, 'fine_tuning.create', done.json);
  await rememberFineTuningJob(deps.database.db, ownerFor(done.resolved), job);
  await sendJson(reply, job);
}

async function list(request: FastifyRequest, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  await listOperation(request, reply, deps, { operation: 'fine_tuning.list', method: 'GET', path: '/fine_tuning/jobs' }, (resolved, json, data) =>
    scopeList(deps.database.db, 'fine_tuning_job', principal, resolved.adapter.name, json, data),
  );
}

/** retrieve and cancel answer the job (the record refreshed from it); events and checkpoints are lists of the job */
async function ofJob(request: FastifyRequest<JobParams>, reply: FastifyReply, deps: ResourceDeps, operation: ResourceOperation): Promise<void> {
  const principal = callerOf(request);
  const id = request.params.fine_tuning_job_id;
  const row = await ownedFineTuningJob(deps.database.db, principal, id);
  const suffix = { 'fine_tuning.cancel': '/cancel', 'fine_tuning.events': '/events', 'fine_tuning.checkpoints': '/checkpoints' }[operation as string] ?? '';
  const check = (resolved: ResolvedResource) => requireRecordProvider(resolved, row, 'fine-tuning job', id);
  const method = operation === 'fine_tuning.cancel' ? 'POST' : 'GET';
  const done = await jsonOperation(request, reply, deps, { operation, method, path: `/fine_tuning/jobs/${segment(id)}${suffix}`, fallbackSlug: row.providerSlug, check });
  if (!done) return;
  if (operation === 'fine_tuning.events' || operation === 'fine_tuning.checkpoints') return sendJson(reply, done.json);
  const job = openAiObject(done.resolved, operation, done.json);
  await refreshFineTuningJob(deps.database.db, row, job);
  await sendJson(reply, job);
}

export function registerFineTuningRoutes(app: FastifyInstance, deps: ResourceDeps): void {
  app.post('/v1/fine_tuning/jobs', { config }, (request, reply) => create(request, reply, deps));
  app.get('/v1/fine_tuning/jobs', { config }, (request, reply) => list(request, reply, deps));
  app.get<JobParams>('/v1/fine_tuning/jobs/:fine_tuning_job_id', { config }, (request, reply) => ofJob(request, reply, deps, 'fine_tuning.retrieve'));
  app.post<JobParams>('/v1/fine_tuning/jobs/:fine_tuning_job_id/cancel', { config }, (request, reply) => ofJob(request, reply, deps, 'fine_tuning.cancel'));
  app.get<JobParams>('/v1/fine_tuning/jobs/:fine_tuning_job_id/events', { config }, (request, reply) => ofJob(request, reply, deps, 'fine_tuning.events'));
  app.get<JobParams>('/v1/fine_tuning/jobs/:fine_tuning_job_id/checkpoints', { config }, (request, reply) => ofJob(request, reply, deps, 'fine_tuning.checkpoints'));
}
