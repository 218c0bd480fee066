/**
 * GET /v1/realtime: the Realtime API's WebSocket (status 101), relayed to the provider's realtime socket. The
 * upgrade is taken from the raw server's `upgrade` event (open-session.ts does the work); the same path asked
 * without an upgrade is a Fastify route that answers 426 in the error shape (after the usual authentication).
 * Sessions still open when the app closes are closed with 1001 (going away), and their rows written, first.
 */
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { GatewayError, notFound } from '../../core/errors.ts';
import { chooseProtocol, refuseWithError } from './handshake.ts';
import { openSession, type LiveSession, type RealtimeDeps } from './open-session.ts';

export const REALTIME_PATH = '/v1/realtime';
/** a frame larger than this (either way) closes the session with 1009: audio chunks are far smaller */
const MAX_FRAME_BYTES = 32 * 1024 * 1024;
/** how long open sessions get to close on shutdown before their sockets are cut */
const CLOSE_GRACE_MS = 2_000;

function upgradeRequired(): GatewayError {
  return new GatewayError(426, 'invalid_request_error', 'GET /v1/realtime is a WebSocket endpoint: send an upgrade request (Connection: Upgrade, Upgrade: websocket).', { code: 'upgrade_required' });
}

export function registerRealtimeRoute(app: FastifyInstance, deps: Omit<RealtimeDeps, 'sessions' | 'onError'>): void {
  const sessions = new Set<LiveSession>();
  const full: RealtimeDeps = { ...deps, sessions, onError: (error) => app.log.error({ err: error }, 'realtime: a session failed') };
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES, handleProtocols: chooseProtocol });

  app.get(REALTIME_PATH, async (_request, reply) => {
    reply.header('upgrade', 'websocket');
    throw upgradeRequired();
  });

  app.server.on('upgrade', (request, socket, head) => {
    const url = request.url ?? '';
    const queryAt = url.indexOf('?');
    const path = queryAt >= 0 ? url.slice(0, queryAt) : url;
    // errors on the raw socket (a client that resets) end it; they are not the process's to crash on
    socket.on('error', () => socket.destroy());
    if (path !== REALTIME_PATH) {
      refuseWithError(socket, notFound(`No WebSocket endpoint at ${path.slice(0, 200)}: the Realtime API is at ${REALTIME_PATH}.`, 'route_not_found'));
      return;
    }
    void openSession(request, socket, head, queryAt >= 0 ? url.slice(queryAt + 1) : '', wss, full);
  });

  app.addHook('preClose', async () => {
    const open = [...sessions];
    for (const { client, provider } of open) {
      client.close(1001, 'the gateway is shutting down');
      provider.close(1001, 'the gateway is shutting down');
    }
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)));
    await Promise.race([Promise.all(open.map((live) => live.ended)), grace]);
    clearTimeout(timer);
    for (const { client, provider } of sessions) {
      client.terminate();
      provider.terminate();
    }
    wss.close();
  });
}
