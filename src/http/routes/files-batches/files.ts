/**
 * /v1/files: upload (multipart, streamed to the provider as it arrives), list, retrieve, content, delete
 * (https://platform.openai.com/docs/api-reference/files). The upload's body is never parsed nor held: Fastify hands
 * the request stream through (index.ts), a counter notes its bytes for the record, and the provider's answer says
 * what the file is.
 */
import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, invalidParam } from '../../../core/errors.ts';
import { ownedFile } from '../../../domain/files-batches/find-owned.ts';
import { forgetFile, refreshFile, rememberFile } from '../../../domain/files-batches/remember.ts';
import { scopeList } from '../../../domain/files-batches/scope-list.ts';
import { findBatchByOutputFile } from '../../../storage/repositories/files-batches.ts';
import { relayContent } from './content.ts';
import { callerOf, jsonOperation, listOperation, ownerFor, requireRecordProvider, segment, type ResourceDeps } from './operation.ts';
import { openAiObject, sendJson, type Upload } from './upstream.ts';

/** OpenAI's largest file (512 MB), plus room for the multipart framing */
export const MAX_UPLOAD_BYTES = 513 * 1024 * 1024;

type FileParams = { Params: { file_id: string } };
const config = { routeKind: 'passthrough' as const };

function tooLarge(): GatewayError {
  return new GatewayError(413, 'invalid_request_error', `The upload is larger than ${MAX_UPLOAD_BYTES} bytes.`, { code: 'file_too_large', param: 'file' });
}

/** The client's stream with its bytes counted on the way; past the cap it fails (and the provider's request with it). */
function countedUpload(request: FastifyRequest): { upload: Upload; bytes: () => number } {
  const contentType = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;\s*boundary=/i.test(contentType)) {
    throw invalidParam('file', 'POST /v1/files takes multipart/form-data (with a boundary) carrying the fields `file` and `purpose`.', 'invalid_content_type');
  }
  const length = request.headers['content-length'];
  if (length !== undefined && Number(length) > MAX_UPLOAD_BYTES) throw tooLarge();
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > MAX_UPLOAD_BYTES) callback(tooLarge());
      else callback(null, chunk);
    },
  });
  const raw = request.raw;
  raw.once('error', (error) => counter.destroy(error));
  raw.once('aborted', () => counter.destroy(new Error('the client aborted the upload')));
  raw.pipe(counter);
  return { upload: { stream: counter, contentType, length }, bytes: () => bytes };
}

async function upload(request: FastifyRequest, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  callerOf(request);
  const counted = countedUpload(request);
  const done = await jsonOperation(request, reply, deps, { operation: 'files.create', method: 'POST', path: '/files', upload: counted.upload });
  if (!done) return;
  const file = openAiObject(done.resolved, 'files.create', done.json);
  await rememberFile(deps.database.db, ownerFor(done.resolved), file, counted.bytes(), done.location);
  await sendJson(reply, file);
}

async function list(request: FastifyRequest, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  await listOperation(request, reply, deps, { operation: 'files.list', method: 'GET', path: '/files' }, (resolved, json, data) =>
    scopeList(deps.database.db, 'file', principal, resolved.adapter.name, json, data),
  );
}

async function retrieve(request: FastifyRequest<FileParams>, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  const id = request.params.file_id;
  const row = await ownedFile(deps.database.db, principal, id);
  const check = (resolved: Parameters<typeof requireRecordProvider>[0]) => requireRecordProvider(resolved, row, 'file', id);
  const done = await jsonOperation(request, reply, deps, { operation: 'files.retrieve', method: 'GET', path: `/files/${segment(id)}`, fallbackSlug: row.providerSlug, check });
  if (!done) return;
  const file = openAiObject(done.resolved, 'files.retrieve', done.json);
  await refreshFile(deps.database.db, row, file);
  await sendJson(reply, file);
}

async function remove(request: FastifyRequest<FileParams>, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  const id = request.params.file_id;
  const row = await ownedFile(deps.database.db, principal, id);
  const check = (resolved: Parameters<typeof requireRecordProvider>[0]) => requireRecordProvider(resolved, row, 'file', id);
  const done = await jsonOperation(request, reply, deps, { operation: 'files.delete', method: 'DELETE', path: `/files/${segment(id)}`, fallbackSlug: row.providerSlug, check });
  if (!done) return;
  if (done.json.deleted === true) await forgetFile(deps.database.db, row, deps.now());
  await sendJson(reply, done.json);
}

async function content(request: FastifyRequest<FileParams>, reply: FastifyReply, deps: ResourceDeps): Promise<void> {
  const principal = callerOf(request);
  const id = request.params.file_id;
  const row = await ownedFile(deps.database.db, principal, id);
  // the output file of one of the workspace's batches: its usage is counted when it is read (batch-output.ts)
  const batch = await findBatchByOutputFile(deps.database.db, principal.workspaceId, row.provider, id);
  await relayContent(request, reply, deps, { operation: 'files.content', fileId: id, provider: row.provider, fallbackSlug: row.providerSlug, batch });
}

export function registerFileRoutes(app: FastifyInstance, deps: ResourceDeps): void {
  app.post('/v1/files', { config }, (request, reply) => upload(request, reply, deps));
  app.get('/v1/files', { config }, (request, reply) => list(request, reply, deps));
  app.get<FileParams>('/v1/files/:file_id', { config }, (request, reply) => retrieve(request, reply, deps));
  app.delete<FileParams>('/v1/files/:file_id', { config }, (request, reply) => remove(request, reply, deps));
  app.get<FileParams>('/v1/files/:file_id/content', { config }, (request, reply) => content(request, reply, deps));
}
