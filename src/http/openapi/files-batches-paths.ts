/**
 * Files, batches and fine-tuning (src/http/routes/files-batches/): OpenAI's operations, forwarded to the selected
 * provider (Azure OpenAI translated), recorded per workspace, and the gateway's GET /batches/{batch_id}/output.
 */
import { GATEWAY_HEADERS, pathParameter, queryParameter } from './parameters.ts';
import { INFERENCE_HEADERS, inferenceErrors } from './responses.ts';
import type { JsonSchema, Operation, Parameter, Paths } from './types.ts';

const TAG = 'inference';
const OBJECT: JsonSchema = { type: 'object', description: 'the provider\'s object, in OpenAI\'s shape' };
const SCOPED = 'Needs the key\'s `completions.write`. An id the caller\'s workspace did not create through the gateway is a 404.';

const FILE_ID = pathParameter('file_id', 'the provider\'s file id (file-...)');
const BATCH_ID = pathParameter('batch_id', 'the provider\'s batch id (batch_...)');
const JOB_ID = pathParameter('fine_tuning_job_id', 'the provider\'s fine-tuning job id (ftjob-...)');
const paging = (defaultLimit: number): Parameter[] => [
  queryParameter('after', 'the id to list after (the provider\'s cursor)'),
  queryParameter('limit', 'at most this many', { type: 'integer', minimum: 1, maximum: 10000, default: defaultLimit }),
];

function operation(operationId: string, summary: string, description: string, parameters: Parameter[] = [], content: Record<string, { schema: JsonSchema }> = { 'application/json': { schema: OBJECT } }): Operation {
  return {
    operationId,
    summary,
    description: `${description} ${SCOPED}`,
    tags: [TAG],
    parameters: [...parameters, ...GATEWAY_HEADERS],
    responses: { '200': { description: 'the provider\'s answer', headers: INFERENCE_HEADERS, content }, ...inferenceErrors() },
  };
}

const GATEWAY_OPTIONS: JsonSchema = {
  type: 'object',
  description: 'routing inside the body (never sent to the provider): the saved provider to use when no header names one, and settings a translating provider reads',
  properties: { 'x-gateway-virtual-key': { type: 'string', description: 'a saved provider\'s slug (`@` optional)' } },
  additionalProperties: { type: 'string', description: 'a setting the provider\'s adapter reads (docs/providers.md)' },
};

const BATCH_CREATE: JsonSchema = {
  type: 'object',
  required: ['input_file_id', 'endpoint', 'completion_window'],
  properties: {
    input_file_id: { type: 'string', minLength: 1, description: 'a file of the caller\'s workspace' },
    endpoint: { type: 'string', enum: ['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/responses'] },
    completion_window: { type: 'string', enum: ['24h', 'immediate'], description: '`immediate` where the provider offers it (Azure OpenAI refuses it)' },
    metadata: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
    gateway_options: GATEWAY_OPTIONS,
  },
};

const FINE_TUNING_CREATE: JsonSchema = {
  type: 'object',
  required: ['model', 'training_file'],
  properties: {
    model: { type: 'string', minLength: 1 },
    training_file: { type: 'string', minLength: 1, description: 'a file of the caller\'s workspace' },
    validation_file: { type: ['string', 'null'] },
    suffix: { type: ['string', 'null'] },
    method: { type: 'object', properties: { type: { type: 'string', enum: ['supervised', 'dpo'] } } },
    gateway_options: GATEWAY_OPTIONS,
  },
};

const UPLOAD: JsonSchema = {
  type: 'object',
  required: ['file', 'purpose'],
  properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string', enum: ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] } },
};

/** The request bodies, as components (named by every operation that reads one). */
export function filesBatchesComponents(): Record<string, JsonSchema> {
  return {
    FileUploadRequest: UPLOAD,
    BatchCreateRequest: BATCH_CREATE,
    FineTuningJobCreateRequest: FINE_TUNING_CREATE,
    EmptyRequest: { type: 'object', description: 'no field is read; the body may be left out', maxProperties: 0 },
  };
}

type BodyName = 'FileUploadRequest' | 'BatchCreateRequest' | 'FineTuningJobCreateRequest' | 'EmptyRequest';
const withBody = (op: Operation, name: BodyName, type = 'application/json'): Operation => ({
  ...op,
  requestBody: { required: name !== 'EmptyRequest', content: { [type]: { schema: { $ref: `#/components/schemas/${name}` } } } },
});
const BYTES = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } as JsonSchema } };

export function filesBatchesPaths(): Paths {
  return {
    '/files': {
      get: operation('listFiles', 'List files', 'The provider\'s list, cut down to the files the caller\'s workspace uploaded.', [queryParameter('purpose', 'only files of this purpose')]),
      post: withBody(operation('createFile', 'Upload a file', 'multipart/form-data, streamed to the provider as it arrives (never held whole); at most 513 MiB.'), 'FileUploadRequest', 'multipart/form-data'),
    },
    '/files/{file_id}': {
      get: operation('retrieveFile', 'Retrieve a file', 'The provider\'s file object.', [FILE_ID]),
      delete: operation('deleteFile', 'Delete a file', 'Deleted at the provider, then gone from the workspace.', [FILE_ID]),
    },
    '/files/{file_id}/content': {
      get: operation('downloadFile', 'A file\'s content', 'Streamed from the provider. A batch\'s output file counts that batch\'s usage, once (as GET /batches/{batch_id}/output does).', [FILE_ID], BYTES),
    },
    '/batches': {
      get: operation('listBatches', 'List batches', 'The provider\'s list, cut down to the workspace\'s batches.', paging(20)),
      post: withBody(operation('createBatch', 'Create a batch', 'Forwarded without gateway_options; for Azure OpenAI the endpoint loses its /v1.'), 'BatchCreateRequest'),
    },
    '/batches/{batch_id}': { get: operation('retrieveBatch', 'Retrieve a batch', 'The provider\'s batch; the record is refreshed from it.', [BATCH_ID]) },
    '/batches/{batch_id}/cancel': { post: withBody(operation('cancelBatch', 'Cancel a batch', 'Cancelled at the provider.', [BATCH_ID]), 'EmptyRequest') },
    '/batches/{batch_id}/output': {
      get: operation(
        'getBatchOutput',
        'A batch\'s output (JSONL)',
        'The output file of a completed batch, streamed. The first retrieval writes the summed usage of its lines and their cost to the request log (mode `batch`); later ones count nothing. 400 `batch_output_not_ready` before the batch has an output.',
        [BATCH_ID],
        BYTES,
      ),
    },
    '/fine_tuning/jobs': {
      get: operation('listPaginatedFineTuningJobs', 'List fine-tuning jobs', 'The provider\'s list, cut down to the workspace\'s jobs.', paging(20)),
      post: withBody(operation('createFineTuningJob', 'Create a fine-tuning job', 'The training (and validation) file must be the workspace\'s.'), 'FineTuningJobCreateRequest'),
    },
    '/fine_tuning/jobs/{fine_tuning_job_id}': { get: operation('retrieveFineTuningJob', 'Retrieve a fine-tuning job', 'The provider\'s job.', [JOB_ID]) },
    '/fine_tuning/jobs/{fine_tuning_job_id}/cancel': { post: withBody(operation('cancelFineTuningJob', 'Cancel a fine-tuning job', 'Cancelled at the provider.', [JOB_ID]), 'EmptyRequest') },
    '/fine_tuning/jobs/{fine_tuning_job_id}/events': { get: operation('listFineTuningEvents', 'A fine-tuning job\'s events', 'From the provider.', [JOB_ID, ...paging(20)]) },
    '/fine_tuning/jobs/{fine_tuning_job_id}/checkpoints': { get: operation('listFineTuningJobCheckpoints', 'A fine-tuning job\'s checkpoints', 'From the provider.', [JOB_ID, ...paging(10)]) },
  };
}
