/**
 * One Realtime session, from the upgrade request to its log row. In order, before anything is upgraded: the
 * gateway key (header or subprotocol), the `model` query parameter, the x-gateway-* headers, the provider target
 * (resolved as every inference request's is: a provider with `Authorization`, a custom host through the SSRF
 * guard, or a saved provider `@slug` / virtual key with its stored credential), the rate limits (the session counts
 * as one request) and the budgets (an estimate reserved). Then the provider's socket is opened; only once it has
 * answered 101 is the client upgraded, so a provider refusal reaches the client with the provider's status and
 * body. A refusal after authentication is logged like any request's. Each response's usage is counted in the
 * limits as it arrives (session-limits.ts): one used up mid-session stops the session with an error event.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, type WebSocketServer } from 'ws';
import type { GatewayHeaders, Principal } from '../../core/context.ts';
import { badRequest, GatewayError, internalError, isGatewayError, unauthorized } from '../../core/errors.ts';
import type { InferenceCall } from '../../core/inference-call.ts';
import { LimitError } from '../../limits/limit-error.ts';
import { newRequestRecord, noteErrorBody, noteTry, type RequestRecord } from '../../logging/request-record.ts';
import { catalogPrice, shippedPricing } from '../../pricing/catalog.ts';
import type { ModelPrice } from '../../pricing/model-price.ts';
import { realtimeConnection } from '../../providers/openai-compatible/realtime.ts';
import { noteSavedProvider, resolveAttemptTarget } from '../../pipeline/saved-provider-target.ts';
import { noteAttempt } from '../../pipeline/steps/log-record.ts';
import { requestRateLimits, type RequestRateLimits } from '../../pipeline/steps/rate-limits.ts';
import { requestBudgets } from '../../pipeline/steps/budgets.ts';
import { CUSTOM_HOST_BLOCKED_CODE, guardedLookup } from '../../upstream/ssrf-guard.ts';
import type { ForwardDeps } from '../forward.ts';
import { parseGatewayHeaders } from '../parse-gateway-headers.ts';
import type { CredentialResolver } from '../plugins/auth.ts';
import { gatewayKeyOf, modelOf, refuseHandshake, refuseWithError } from './handshake.ts';
import { addUsage, relay } from './relay.ts';
import { isNormalClose, writeSessionRow, type SessionLogDeps } from './session-log.ts';
import { sessionLimits, stopSession, type SessionLimits } from './session-limits.ts';

export interface RealtimeDeps extends ForwardDeps {
  credentials: CredentialResolver;
  log: SessionLogDeps;
  /** the live sessions, closed when the app closes */
  sessions: Set<LiveSession>;
  /** internal failures, for the server log */
  onError: (error: unknown) => void;
}

export interface LiveSession {
  client: WebSocket;
  provider: WebSocket;
  ended: Promise<void>;
}

const HANDSHAKE_TIMEOUT_MS = 30_000;
const ERROR_BODY_CAP = 64 * 1024;

interface Opened {
  principal: Principal;
  headers: GatewayHeaders;
  record: RequestRecord;
  model: string;
}

async function priceOf(provider: string, model: string, principal: Principal, integrationId: string | undefined, deps: RealtimeDeps): Promise<ModelPrice | null> {
  if (!deps.prices) return catalogPrice(shippedPricing, provider, model)?.price ?? null;
  try {
    return (await deps.prices.resolve({ provider, model, organisationId: principal.organisationId, workspaceId: principal.workspaceId, integrationId }))?.price ?? null;
  } catch {
    return null;
  }
}

async function authenticate(request: IncomingMessage, deps: RealtimeDeps): Promise<Principal> {
  const key = gatewayKeyOf(request.headers);
  if (!key) throw unauthorized('Missing gateway key: send x-gateway-api-key, or the subprotocol openai-insecure-api-key.<key>.', 'missing_api_key');
  const principal = await deps.credentials(key);
  if (!principal) throw unauthorized('Invalid, revoked or expired API key.', 'invalid_api_key');
  return principal;
}

/** The provider's refusal of the handshake, passed on with its status and (capped) body. */
function passRefusal(socket: Duplex, response: IncomingMessage, onDone: (status: number, body: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    if (size < ERROR_BODY_CAP) chunks.push(chunk);
    size += chunk.length;
  });
  response.once('end', () => {
    const status = response.statusCode ?? 502;
    const text = Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_CAP);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: { message: text || `The provider refused the realtime session (${status}).`, type: 'upstream_error', param: null, code: null } };
    }
    const sent = status >= 400 ? status : 502;
    refuseHandshake(socket, sent, body);
    onDone(sent, body);
  });
  response.once('error', () => onDone(502, undefined));
}

function connectionError(error: Error & { code?: string }, provider: string): GatewayError {
  if (error.code === CUSTOM_HOST_BLOCKED_CODE) return badRequest(error.message, 'custom_host_blocked', 'x-gateway-custom-host');
  if (/handshake has timed out/i.test(error.message)) return new GatewayError(408, 'timeout_error', `The provider "${provider}" did not open the realtime session in time.`, { code: 'request_timeout' });
  return new GatewayError(502, 'upstream_error', `The provider "${provider}" could not be reached for the realtime session.`, { code: 'upstream_unreachable' });
}

export async function openSession(request: IncomingMessage, socket: Duplex, head: Buffer, queryText: string, wss: WebSocketServer, deps: RealtimeDeps): Promise<void> {
  let opened: Opened | undefined;
  const logRefusal = (status: number, body: unknown) => {
    if (!opened) return;
    noteErrorBody(opened.record, body);
    writeSessionRow({ request, ...opened, status, succeeded: false, onError: deps.onError }, deps.log);
  };
  try {
    const principal = await authenticate(request, deps);
    const headers = parseGatewayHeaders(request.headers, deps, request.rawHeaders);
    const record = newRequestRecord(deps.log.now(), 'realtime');
    record.streamed = true;
    const query = new URLSearchParams(queryText);
    opened = { principal, headers, record, model: query.get('model') ?? '' };
    const model = modelOf(query);
    const call = { route: 'passthrough', body: { model }, method: 'GET', path: '/realtime', query: queryText, strictReferenceCompliance: true, rawBody: undefined, contentType: undefined, params: {} } as InferenceCall;
    const { adapter, target, call: sent, savedProvider } = await resolveAttemptTarget(headers, call, principal, deps);
    const upstreamModel = (sent.body as { model: string }).model;
    noteAttempt(record, adapter.name, sent.body);
    noteSavedProvider(record, savedProvider);
    if (upstreamModel !== model) query.set('model', upstreamModel);
    const connection = realtimeConnection(target, query.toString());
    if (!connection) {
      throw new GatewayError(400, 'invalid_request_error', `Provider "${adapter.name}" has no realtime API.`, { code: 'unsupported_route', param: headers.savedProviderParam ?? 'x-gateway-provider' });
    }
    const workspace = await deps.workspaceDefaults(principal.organisationId, principal.workspaceId);
    const limits = requestRateLimits(principal, workspace, headers.metadata, deps);
    const limited = await limits.check({ provider: adapter.name, providerSlug: headers.providerSlug, providerRecord: savedProvider });
    if (limited) throw limited;
    const budget = await requestBudgets(principal, headers, record, deps).reserve({ call: sent, provider: adapter.name, providerSlug: headers.providerSlug, savedProvider });
    if (budget.refused) throw budget.refused;
    const guard = sessionLimits(limits, budget);
    record.price = await priceOf(adapter.name, upstreamModel, principal, savedProvider?.integrationId, deps);
    connect({ request, socket, head, wss, deps, opened, connection, customHost: target.customHost, providerName: adapter.name, timeoutMs: headers.requestTimeoutMs, limits: guard, logRefusal });
  } catch (error) {
    const refusal = isGatewayError(error) ? error : internalError();
    if (!isGatewayError(error)) deps.onError(error);
    refuseWithError(socket, refusal, refusal instanceof LimitError ? refusal.headers : undefined);
    logRefusal(refusal.status, refusal.toBody());
  }
}

interface Connecting {
  request: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  wss: WebSocketServer;
  deps: RealtimeDeps;
  opened: Opened;
  connection: { url: string; headers: Record<string, string> };
  customHost: boolean;
  providerName: string;
  timeoutMs: number | undefined;
  /** counts each response's usage as it arrives, and ends with the session */
  limits: SessionLimits;
  logRefusal: (status: number, body: unknown) => void;
}

function connect(context: Connecting): void {
  const { request, socket, head, wss, deps, opened, connection } = context;
  const { record } = opened;
  const now = deps.log.now;
  const sentAt = now();
  const options = {
    headers: connection.headers,
    perMessageDeflate: false,
    followRedirects: false,
    handshakeTimeout: context.timeoutMs ?? HANDSHAKE_TIMEOUT_MS,
    // a custom host is connected to through the guarded lookup: every address it resolves to is checked again
    ...(context.customHost ? { lookup: guardedLookup(deps.allowlist) as never } : {}),
  };
  const provider = new WebSocket(connection.url, options);
  let settled = false;
  const fail = (status: number, body: unknown, error: { type: string; message: string } | null) => {
    if (settled) return;
    settled = true;
    noteTry(record, { path: null, provider: context.providerName, model: record.model ?? null, status, error, retry: 0 }, sentAt, now());
    context.limits.end();
    context.logRefusal(status, body);
  };
  // the client gave up while the provider's socket was opening
  const clientGone = () => {
    provider.terminate();
    fail(499, { error: { message: 'The client closed the connection before the session opened.', type: 'client_closed', code: 'client_closed_request' } }, null);
  };
  socket.once('close', clientGone);
  provider.once('unexpected-response', (upstreamRequest, response) => {
    socket.off('close', clientGone);
    passRefusal(socket, response, (status, body) => {
      upstreamRequest.destroy();
      fail(status, body ?? { error: { message: 'The provider refused the realtime session.', type: 'upstream_error', code: null } }, { type: 'upstream_error', message: `HTTP ${response.statusCode ?? status}` });
    });
  });
  provider.once('error', (error: Error & { code?: string }) => {
    if (settled) return;
    socket.off('close', clientGone);
    const refusal = connectionError(error, context.providerName);
    refuseWithError(socket, refusal);
    fail(refusal.status, refusal.toBody(), { type: refusal.type, message: refusal.message });
  });
  provider.once('open', () => {
    socket.off('close', clientGone);
    settled = true;
    noteTry(record, { path: null, provider: context.providerName, model: record.model ?? null, status: 101, error: null, retry: 0 }, sentAt, now());
    if (socket.destroyed) {
      provider.terminate();
      context.limits.end();
      return;
    }
    wss.handleUpgrade(request, socket, head, (client) => session(context, client, provider));
  });
}

function session(context: Connecting, client: WebSocket, provider: WebSocket): void {
  const { deps, opened, request } = context;
  const { record } = opened;
  let finish!: () => void;
  const live: LiveSession = { client, provider, ended: new Promise((resolve) => (finish = resolve)) };
  let stopped: GatewayError | undefined;
  deps.sessions.add(live);
  relay(client, provider, {
    onFirstFrame: () => {
      record.firstByteAt ??= deps.log.now();
    },
    onUsage: (usage) => {
      record.usage = addUsage(record.usage, usage);
      // counted as it arrives: a limit used up mid-session stops it
      void context.limits.used(usage).then((refusal) => {
        if (!refusal || stopped) return;
        stopped = refusal;
        stopSession(client, provider, refusal);
      });
    },
    onEnd: (end) => {
      deps.sessions.delete(live);
      const succeeded = !stopped && (isNormalClose(end.code) || (end.closedBy === 'client' && end.code === 1001));
      if (stopped) record.error = stopped.toBody().error;
      else if (!succeeded) {
        const detail = end.reason ? `: ${end.reason}` : '';
        record.error = {
          message: `The ${end.closedBy} closed the realtime session with code ${end.code}${detail}.`.slice(0, 500),
          type: end.closedBy === 'provider' ? 'upstream_error' : 'client_closed',
          code: `websocket_close_${end.code}`,
        };
      }
      context.limits.end();
      writeSessionRow({ request, ...opened, status: 101, succeeded, onError: deps.onError }, deps.log);
      finish();
    },
  });
}
