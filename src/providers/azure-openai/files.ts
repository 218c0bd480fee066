/**
 * Azure OpenAI files, batches and fine-tuning
 * (https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/batch,
 * https://learn.microsoft.com/en-us/azure/ai-services/openai/reference-preview#files,
 * https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/fine-tuning).
 * The paths are OpenAI's under the resource's `/openai` base, with `api-version` (request.ts does that for every
 * pass-through path) and the `api-key` header. Where Azure departs from OpenAI's shapes:
 * - a batch's `endpoint` is the path without `/v1` (`/chat/completions`), both in the request and in its answers;
 * - batches only complete within 24 hours: `completion_window: immediate` cannot be honoured (a 400 naming it);
 * - file statuses include `pending`, `running`, `deleting` and `deleted`; fine-tuning jobs `pending` and
 *   `notRunning`: mapped onto OpenAI's enums (the provider's value kept in `azure_status`).
 */
import { invalidParam } from '../../core/errors.ts';
import type { ResourceHooks, ResourceOperation } from '../contract.ts';

const FILE_STATUS: Readonly<Record<string, string>> = { pending: 'uploaded', running: 'uploaded', deleting: 'processed', deleted: 'processed' };
const JOB_STATUS: Readonly<Record<string, string>> = { pending: 'queued', notRunning: 'queued', notrunning: 'queued', canceled: 'cancelled' };

function kindOf(operation: ResourceOperation): 'file' | 'batch' | 'job' {
  if (operation.startsWith('files.')) return 'file';
  return operation.startsWith('batches.') ? 'batch' : 'job';
}

function mapped(object: Record<string, unknown>, table: Readonly<Record<string, string>>): Record<string, unknown> {
  const status = object.status;
  if (typeof status !== 'string' || table[status] === undefined) return object;
  return { ...object, status: table[status], azure_status: status };
}

export const azureResourceHooks: ResourceHooks = {
  requestBody(operation, body) {
    if (operation !== 'batches.create') return { ...body };
    if (body.completion_window === 'immediate') {
      throw invalidParam('completion_window', 'Azure OpenAI batches complete within 24 hours: completion_window must be "24h".');
    }
    const endpoint = body.endpoint;
    return typeof endpoint === 'string' && endpoint.startsWith('/v1/') ? { ...body, endpoint: endpoint.slice(3) } : { ...body };
  },
  answerObject(operation, object) {
    const kind = kindOf(operation);
    if (kind === 'file') return mapped({ ...object }, FILE_STATUS);
    if (kind === 'job') return mapped({ ...object }, JOB_STATUS);
    const endpoint = object.endpoint;
    return typeof endpoint === 'string' && endpoint.startsWith('/') && !endpoint.startsWith('/v1/') ? { ...object, endpoint: `/v1${endpoint}` } : { ...object };
  },
};
