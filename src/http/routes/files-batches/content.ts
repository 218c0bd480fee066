/**
 * A file's content, streamed from the provider to the client as it comes (GET /v1/files/{id}/content, and
 * GET /v1/batches/{id}/output over the batch's output file). When the file is a batch's output, each line's usage
 * is summed on the way and, once the whole output has been sent, written to this request's log row (mode `batch`,
 * priced like a request) by the first retrieval only: the batch record is claimed in one conditional update.
 */
import { Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../../core/context.ts';
import { createBatchUsageReader, type BatchUsage } from '../../../domain/files-batches/batch-usage.ts';
import type { RequestRecord } from '../../../logging/request-record.ts';
import { catalogPrice, shippedPricing } from '../../../pricing/catalog.ts';
import type { ModelPrice } from '../../../pricing/model-price.ts';
import type { ResourceOperation } from '../../../providers/contract.ts';
import { claimBatchUsage, type BatchRow } from '../../../storage/repositories/files-batches.ts';
import { safeResponseHeaders } from '../../response-headers.ts';
import { requireRecordProvider, segment, type ResourceDeps } from './operation.ts';
import { callOf, resolveResource } from './resolve.ts';
import { customCall, readJsonAnswer, sendResource } from './upstream.ts';

export interface ContentSpec {
  operation: ResourceOperation;
  fileId: string;
  /** the provider the file was created at */
  provider: string;
  fallbackSlug: string | null;
  /** the batch whose output this file is, if any */
  batch: BatchRow | undefined;
}

async function priceOf(deps: ResourceDeps, principal: Principal, provider: string, model: string, integrationId: string | null): Promise<ModelPrice | null> {
  if (!deps.prices) return catalogPrice(shippedPricing, provider, model)?.price ?? null;
  try {
    const query = { provider, model, organisationId: principal.organisationId, workspaceId: principal.workspaceId, integrationId: integrationId ?? undefined };
    return (await deps.prices.resolve(query))?.price ?? null;
  } catch {
    // a price lookup that fails leaves the cost unknown; it never fails the download
    return null;
  }
}

/** The output's usage on this request's row, once per batch. Several models: tokens summed, the cost unknown. */
async function noteBatchUsage(record: RequestRecord | undefined, used: BatchUsage, batch: BatchRow, principal: Principal, deps: ResourceDeps): Promise<void> {
  if (!record || !used.usage) return;
  if (!(await claimBatchUsage(deps.database.db, batch.id, deps.now()))) return;
  record.usage = used.usage;
  const [model] = used.models;
  if (used.models.size === 1 && model !== undefined) {
    record.model = model;
    record.price = await priceOf(deps, principal, batch.provider, model, batch.integrationId);
  } else record.price = null;
}

export async function relayContent(request: FastifyRequest, reply: FastifyReply, deps: ResourceDeps, spec: ContentSpec): Promise<void> {
  const principal = request.principal!;
  const path = `/files/${segment(spec.fileId)}/content`;
  const call = callOf(request, { method: 'GET', path, body: undefined, rawBody: undefined, contentType: undefined });
  const resolved = await resolveResource(request, reply, call, deps, spec.fallbackSlug);
  requireRecordProvider(resolved, { provider: spec.provider }, 'file', spec.fileId);
  const record = request.logRecord;
  if (record && spec.batch) record.mode = 'batch';
  const custom = customCall(resolved, spec.operation, { id: spec.fileId });
  const attempt = await sendResource(request, reply, resolved, spec.operation, deps, undefined, custom);
  const response = attempt.response;
  if (response.statusCode < 200 || response.statusCode >= 300) {
    await readJsonAnswer(reply, resolved, attempt, custom);
    return;
  }
  // a provider whose output is not OpenAI's JSONL (Bedrock's records) is translated on the way, before it is counted
  const convert = resolved.adapter.resources?.contentTransform?.(spec.operation, resolved.target);
  const batch = spec.batch && spec.batch.usageRecordedAt === null ? spec.batch : undefined;
  const reader = batch ? createBatchUsageReader() : undefined;
  const relay = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      reader?.push(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      attempt.done(true);
      if (record) record.upstreamEndAt = Date.now();
      // before the last byte goes out: the row is built when the response closes
      if (!reader || !batch) return callback();
      noteBatchUsage(record, reader.end(), batch, principal, deps).then(() => callback(), (error: Error) => {
        request.log.warn({ err: error }, 'batch output: the usage could not be recorded');
        callback();
      });
    },
  });
  response.body.once('error', (error) => (convert ?? relay).destroy(error));
  relay.once('close', () => attempt.done());
  if (convert) {
    convert.once('error', (error) => relay.destroy(error));
    response.body.pipe(convert).pipe(relay);
  } else response.body.pipe(relay);
  const headers = safeResponseHeaders(response.headers);
  const length = response.headers['content-length'];
  if (typeof length === 'string' && !convert) headers['content-length'] = length;
  if (convert) headers['content-type'] = 'application/jsonl';
  await reply.code(response.statusCode).headers(headers).send(relay);
}
