/**
 * The one format of the provider fixture pairs (src/providers/<folder>/__fixtures__/*.json) and its one loader.
 * A file holds named cases; each case is a pair (client request -> upstream request, or upstream answer -> canonical
 * answer) or a chain of both, written from the provider's documentation:
 *
 * {
 *   "description": "what the cases show",
 *   "source": "the provider documentation they are written from (optional)",
 *   "cases": [{
 *     "name": "unique in its file",
 *     "provider": "the adapter (optional: the folder's name; required where the folder serves several, openai-compatible)",
 *     "route": "chat | completions | embeddings | rerank | models | responses.* | passthrough",
 *     "call": { "method": "POST", "path": "", "query": "", "params": {}, "strictReferenceCompliance": true },  (optional, these defaults)
 *     "request": { the client's canonical (OpenAI) body; absent for a call without one },
 *     "target": { "baseUrl", "customHost", "apiKey", "cloud" },  (optional: the base URL resolves as the core resolves it)
 *     "upstreamRequest": { "method", "url", "headers": { the relevant ones; null: must be absent }, "body": JSON | null },
 *     "warnings": [ what x-gateway-warnings says; [] when absent and upstreamRequest is given ],
 *     "upstreamResponse": { "status": 200, "body": JSON } or { "status": 200, "events": [{ "event"?, "data" }] },
 *     "response": the canonical answer, or "unchanged" (the provider's answer or stream goes back as it came),
 *     "chunks": [ the canonical stream chunks, for "events" ],
 *     "providerError": { "message", "type"?, "code"? } or null: how the adapter reads an upstream error (status >= 300),
 *     "error": { "status", "message"?, "type"?, "param"?, "code"? }: the GatewayError building the request (no
 *              upstreamResponse) or decoding the stream (after "chunks") throws; the fields listed are compared
 *   }]
 * }
 *
 * Stream events are written as the provider's framing carries them: an SSE `event:` name (or an AWS event-stream
 * event type, `exception:<type>`, `error:<code>`) and the data, a JSON value or, as a string, raw text.
 * Anything else (an unknown key, a missing field, a duplicate name) fails loudly, naming the file and the case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteKind } from '../../src/providers/contract.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface FixtureEvent {
  event?: string;
  /** a JSON value is sent as its JSON text; a string is the raw data text */
  data: Json;
}

export interface FixtureCall {
  method?: string;
  path?: string;
  query?: string;
  params?: Record<string, string>;
  strictReferenceCompliance?: boolean;
}

export interface FixtureTarget {
  baseUrl?: string;
  customHost?: boolean;
  apiKey?: string;
  cloud?: Record<string, string>;
}

export interface FixtureUpstreamRequest {
  method: string;
  url: string;
  headers?: Record<string, string | null>;
  body: Json;
}

export interface FixtureUpstreamResponse {
  status?: number;
  body?: Json;
  events?: FixtureEvent[];
}

export interface FixtureError {
  status: number;
  message?: string;
  type?: string;
  param?: string | null;
  code?: string | null;
}

export interface FixtureCase {
  name: string;
  provider?: string;
  route: RouteKind;
  call?: FixtureCall;
  request?: Json;
  target?: FixtureTarget;
  upstreamRequest?: FixtureUpstreamRequest;
  warnings?: string[];
  upstreamResponse?: FixtureUpstreamResponse;
  response?: Json;
  chunks?: Json[];
  providerError?: { message: string; type?: string; code?: string } | null;
  error?: FixtureError;
}

export interface FixtureFile {
  description: string;
  source?: string;
  cases: FixtureCase[];
}

/** One case with where it comes from and the adapter it is for. */
export interface LoadedCase {
  /** e.g. `anthropic/simple-chat.json` */
  file: string;
  provider: string;
  fixture: FixtureCase;
}

const ROUTES: readonly RouteKind[] = [
  'chat',
  'completions',
  'embeddings',
  'rerank',
  'models',
  'responses.create',
  'responses.get',
  'responses.delete',
  'responses.input_items',
  'passthrough',
];

export const PROVIDERS_DIRECTORY = fileURLToPath(new URL('../../src/providers/', import.meta.url));

/** Thrown for a fixture that does not follow the format: the message names the file, the case and the field. */
export class FixtureFormatError extends Error {}

type JsonObject = { [key: string]: unknown };
const isRecord = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one value of a fixture, every complaint prefixed with where it is. */
class Reader {
  constructor(private readonly where: string) {}

  fail(message: string): never {
    throw new FixtureFormatError(`${this.where}: ${message}`);
  }

  record(value: unknown, field: string, allowed: readonly string[]): JsonObject {
    if (!isRecord(value)) this.fail(`${field} must be an object`);
    const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
    if (unknown.length > 0) this.fail(`${field} has unknown field(s) ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
    return value;
  }

  string(value: unknown, field: string): string {
    if (typeof value !== 'string' || value.length === 0) this.fail(`${field} must be a non-empty string`);
    return value;
  }

  optionalString(value: unknown, field: string): void {
    if (value !== undefined && typeof value !== 'string') this.fail(`${field} must be a string`);
  }

  strings(value: unknown, field: string): void {
    if (!isRecord(value) || !Object.values(value).every((item) => typeof item === 'string')) this.fail(`${field} must map names to strings`);
  }

  array(value: unknown, field: string): unknown[] {
    if (!Array.isArray(value)) this.fail(`${field} must be an array`);
    return value;
  }
}

function checkCall(read: Reader, value: unknown): void {
  if (value === undefined) return;
  const call = read.record(value, 'call', ['method', 'path', 'query', 'params', 'strictReferenceCompliance']);
  read.optionalString(call.method, 'call.method');
  read.optionalString(call.path, 'call.path');
  read.optionalString(call.query, 'call.query');
  if (call.params !== undefined) read.strings(call.params, 'call.params');
  if (call.strictReferenceCompliance !== undefined && typeof call.strictReferenceCompliance !== 'boolean') read.fail('call.strictReferenceCompliance must be a boolean');
}

function checkTarget(read: Reader, value: unknown): void {
  if (value === undefined) return;
  const target = read.record(value, 'target', ['baseUrl', 'customHost', 'apiKey', 'cloud']);
  if (target.baseUrl !== undefined) read.string(target.baseUrl, 'target.baseUrl');
  if (target.customHost !== undefined && typeof target.customHost !== 'boolean') read.fail('target.customHost must be a boolean');
  read.optionalString(target.apiKey, 'target.apiKey');
  if (target.cloud !== undefined) read.strings(target.cloud, 'target.cloud');
}

function checkUpstreamRequest(read: Reader, value: unknown): void {
  if (value === undefined) return;
  const request = read.record(value, 'upstreamRequest', ['method', 'url', 'headers', 'body']);
  read.string(request.method, 'upstreamRequest.method');
  read.string(request.url, 'upstreamRequest.url');
  if (request.headers !== undefined) {
    if (!isRecord(request.headers)) read.fail('upstreamRequest.headers must be an object');
    for (const [name, header] of Object.entries(request.headers)) {
      if (name !== name.toLowerCase()) read.fail(`upstreamRequest.headers: ${name} must be lower-case`);
      if (header !== null && typeof header !== 'string') read.fail(`upstreamRequest.headers.${name} must be a string, or null for "absent"`);
    }
  }
  if (!('body' in request)) read.fail('upstreamRequest.body is required (null: no body is sent)');
}

function checkUpstreamResponse(read: Reader, value: unknown): FixtureUpstreamResponse | undefined {
  if (value === undefined) return undefined;
  const response = read.record(value, 'upstreamResponse', ['status', 'body', 'events']);
  if (response.status !== undefined && (!Number.isInteger(response.status) || Number(response.status) < 100)) read.fail('upstreamResponse.status must be an HTTP status');
  if (('body' in response) === ('events' in response)) read.fail('upstreamResponse needs exactly one of body and events');
  if ('events' in response) {
    read.array(response.events, 'upstreamResponse.events').forEach((event, index) => {
      const item = read.record(event, `upstreamResponse.events[${index}]`, ['event', 'data']);
      read.optionalString(item.event, `upstreamResponse.events[${index}].event`);
      if (!('data' in item)) read.fail(`upstreamResponse.events[${index}].data is required`);
    });
  }
  return response as FixtureUpstreamResponse;
}

/** What the outputs of a case need of its inputs: each output names the stage it checks. */
function checkOutputs(read: Reader, fixture: JsonObject, upstream: FixtureUpstreamResponse | undefined): void {
  const failing = (upstream?.status ?? 200) >= 300;
  if (fixture.warnings !== undefined) {
    if (!fixture.upstreamRequest) read.fail('warnings need an upstreamRequest (they come with the built request)');
    if (!read.array(fixture.warnings, 'warnings').every((warning) => typeof warning === 'string')) read.fail('warnings must be strings');
  }
  if (fixture.chunks !== undefined) {
    read.array(fixture.chunks, 'chunks');
    if (!upstream?.events) read.fail('chunks need upstreamResponse.events');
  }
  if (upstream?.events && fixture.chunks === undefined && fixture.response !== 'unchanged') read.fail('upstreamResponse.events need chunks (or response "unchanged")');
  if (fixture.response !== undefined) {
    if (!upstream) read.fail('response needs an upstreamResponse');
    if (upstream.events && fixture.response !== 'unchanged') read.fail('a stream is checked with chunks, not response');
    if (!isRecord(fixture.response) && fixture.response !== 'unchanged') read.fail('response must be the canonical answer or "unchanged"');
  }
  if (upstream && !upstream.events && fixture.response === undefined && fixture.providerError === undefined) read.fail('upstreamResponse.body needs a response (or providerError)');
  if (fixture.providerError !== undefined) {
    if (!failing || !upstream || upstream.events) read.fail('providerError needs an upstreamResponse with a body and a status of 300 or more');
    if (fixture.providerError !== null) {
      const parsed = read.record(fixture.providerError, 'providerError', ['message', 'type', 'code']);
      read.string(parsed.message, 'providerError.message');
      read.optionalString(parsed.type, 'providerError.type');
      read.optionalString(parsed.code, 'providerError.code');
    }
  }
  if (fixture.error !== undefined) {
    const error = read.record(fixture.error, 'error', ['status', 'message', 'type', 'param', 'code']);
    if (!Number.isInteger(error.status)) read.fail('error.status must be an integer');
    read.optionalString(error.message, 'error.message');
    read.optionalString(error.type, 'error.type');
    // param and code are null in an error body that has none
    for (const field of ['param', 'code']) if (error[field] !== null) read.optionalString(error[field], `error.${field}`);
    if (upstream && !upstream.events) read.fail('error is thrown building the request or decoding a stream, not reading an answer body');
    if (fixture.upstreamRequest) read.fail('a case whose request fails has no upstreamRequest');
  }
  if (!fixture.upstreamRequest && !upstream && fixture.error === undefined) read.fail('the case checks nothing: give an upstreamRequest, an upstreamResponse or an error');
}

function checkCase(read: Reader, value: unknown): FixtureCase {
  const fixture = read.record(value, 'case', [
    'name',
    'provider',
    'route',
    'call',
    'request',
    'target',
    'upstreamRequest',
    'warnings',
    'upstreamResponse',
    'response',
    'chunks',
    'providerError',
    'error',
  ]);
  if (fixture.provider !== undefined) read.string(fixture.provider, 'provider');
  if (!ROUTES.includes(fixture.route as RouteKind)) read.fail(`route must be one of ${ROUTES.join(', ')}`);
  checkCall(read, fixture.call);
  checkTarget(read, fixture.target);
  checkUpstreamRequest(read, fixture.upstreamRequest);
  checkOutputs(read, fixture, checkUpstreamResponse(read, fixture.upstreamResponse));
  return fixture as unknown as FixtureCase;
}

/** Validates a parsed fixture file; `file` names it in every complaint. */
export function parseFixtureFile(json: unknown, file: string): FixtureFile {
  const read = new Reader(file);
  const top = read.record(json, 'the file', ['description', 'source', 'cases']);
  read.string(top.description, 'description');
  read.optionalString(top.source, 'source');
  const cases = read.array(top.cases, 'cases');
  if (cases.length === 0) read.fail('cases must not be empty');
  const names = new Set<string>();
  return {
    ...(top as { description: string; source?: string }),
    cases: cases.map((value, index) => {
      const name = isRecord(value) && typeof value.name === 'string' && value.name ? value.name : read.fail(`cases[${index}] needs a non-empty name`);
      if (names.has(name)) read.fail(`two cases are named "${name}"`);
      names.add(name);
      return checkCase(new Reader(`${file} case "${name}"`), value);
    }),
  };
}

/** Reads and validates one fixture file (an absolute path). */
export function loadFixtureFile(path: string): FixtureFile {
  const file = relative(PROVIDERS_DIRECTORY, path);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new FixtureFormatError(`${file}: not JSON (${(error as Error).message})`);
  }
  return parseFixtureFile(json, file);
}

/** Every case of every provider folder's __fixtures__/*.json, in folder and file order. */
export function loadProviderFixtures(): LoadedCase[] {
  return readdirSync(PROVIDERS_DIRECTORY, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .flatMap((folder) => {
      const directory = join(PROVIDERS_DIRECTORY, folder, '__fixtures__');
      let names: string[];
      try {
        names = readdirSync(directory).filter((name) => name.endsWith('.json')).sort();
      } catch {
        return [];
      }
      return names.flatMap((name) => {
        const file = `${folder}/${name}`;
        return loadFixtureFile(join(directory, name)).cases.map((fixture) => ({ file, provider: fixture.provider ?? folder, fixture }));
      });
    });
}

/**
 * One named case of one file (`<folder>/<file>.json`, as LoadedCase.file names it), for a test that checks more of
 * it than the contract suite does, or a fake upstream that replays it.
 */
export function fixtureCase(file: string, name: string): FixtureCase {
  const [folder = '', fileName = ''] = file.split('/');
  const found = loadFixtureFile(join(PROVIDERS_DIRECTORY, folder, '__fixtures__', fileName)).cases.find((item) => item.name === name);
  if (!found) throw new FixtureFormatError(`${file}: no case named "${name}"`);
  return found;
}
