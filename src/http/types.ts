import type { GatewayHeaders, Principal } from '../core/context.ts';
import type { RequestRecord } from '../logging/request-record.ts';
import type { RouteKind } from '../providers/contract.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the body bytes exactly as received (JSON and pass-through bodies) */
    rawBody: Buffer | undefined;
    /** set by the auth hook on every /v1 request */
    principal: Principal | undefined;
    /** set on inference routes: the parsed x-gateway-* headers */
    gateway: GatewayHeaders | undefined;
    /** set on routes with a routeKind: what the request log learns as the request runs (http/plugins/request-log.ts) */
    logRecord: RequestRecord | undefined;
  }
  interface FastifyContextConfig {
    /** the inference route this is; routes that declare one are written to the request log */
    routeKind?: RouteKind;
  }
}

export {};
