/**
 * A small HTTP load balancer for multi-node tests, behaving like nginx or HAProxy in front of the gateway:
 * round-robin over the healthy backends, keep-alive connections to them, a backend taken out of rotation when its
 * /ready answers anything but 200 (polled every `pollMs`) or a connection to it fails, and put back once /ready
 * answers 200 again. It never retries: a request it sent to a backend is answered by that backend, or fails (502,
 * or a response cut short), so every failure the gateway causes reaches the client.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Backend {
  origin: string;
  healthy: boolean;
  /** requests sent to it */
  served: number;
  /** times it was taken out of rotation / put back */
  removed: number;
  restored: number;
}

export interface LoadBalancer {
  origin: string;
  baseURL: string;
  backends: Backend[];
  /** requests answered by the balancer itself: no healthy backend (503) or a failed connection (502) */
  refused: number;
  /** emits `up` and `down` with the backend whenever one changes state */
  events: EventEmitter;
  /** resolves once `backend` is in rotation (at once if it is) */
  whenHealthy(backend: Backend): Promise<void>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const kept: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

export async function startLoadBalancer(origins: string[], options: { pollMs?: number } = {}): Promise<LoadBalancer> {
  const pollMs = options.pollMs ?? 100;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const events = new EventEmitter();
  const backends: Backend[] = origins.map((origin) => ({ origin, healthy: false, served: 0, removed: 0, restored: 0 }));
  let next = 0;
  let closed = false;

  const mark = (backend: Backend, healthy: boolean) => {
    if (backend.healthy === healthy) return;
    backend.healthy = healthy;
    if (healthy) backend.restored += 1;
    else backend.removed += 1;
    events.emit(healthy ? 'up' : 'down', backend);
  };

  /** one /ready probe on a connection of its own (a health check must not queue behind the traffic) */
  const probe = (backend: Backend) =>
    new Promise<boolean>((resolve) => {
      const req = http.get(`${backend.origin}/ready`, { agent: false, timeout: pollMs * 5 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      });
      req.on('timeout', () => req.destroy(new Error('health check timed out')));
      req.on('error', () => resolve(false));
    });

  const pollers = backends.map((backend) => {
    let running = false;
    return setInterval(() => {
      if (running || closed) return;
      running = true;
      void probe(backend).then((healthy) => {
        running = false;
        if (!closed) mark(backend, healthy);
      });
    }, pollMs);
  });

  const pick = (): Backend | undefined => {
    for (let tried = 0; tried < backends.length; tried += 1) {
      const backend = backends[next % backends.length]!;
      next += 1;
      if (backend.healthy) return backend;
    }
    return undefined;
  };

  const balancer: LoadBalancer = {
    origin: '',
    baseURL: '',
    backends,
    refused: 0,
    events,
    whenHealthy: (backend) =>
      backend.healthy
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const onUp = (changed: Backend) => {
              if (changed !== backend) return;
              events.off('up', onUp);
              resolve();
            };
            events.on('up', onUp);
          }),
    close: async () => {
      closed = true;
      for (const poller of pollers) clearInterval(poller);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };

  const server = http.createServer((req, res) => {
    const backend = pick();
    if (!backend) {
      balancer.refused += 1;
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"no healthy backend"}');
      return;
    }
    backend.served += 1;
    const url = new URL(req.url ?? '/', backend.origin);
    const upstream = http.request(url, { method: req.method, headers: endToEnd(req.headers), agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
      // cut short by the backend: the client must see a broken response, not a complete-looking one
      answer.on('aborted', () => res.destroy());
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', () => {
      mark(backend, false);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      balancer.refused += 1;
      res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"backend connection failed"}');
    });
    // the client left before its answer ended: so does the request to the backend, as a proxy's would
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  balancer.origin = `http://127.0.0.1:${port}`;
  balancer.baseURL = `${balancer.origin}/v1`;
  return balancer;
}
