import type { GatewayHeaders, Principal } from '../core/context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the body bytes exactly as received (JSON and pass-through bodies) */
    rawBody: Buffer | undefined;
    /** set by the auth hook on every /v1 request */
    principal: Principal | undefined;
    /** set on inference routes: the parsed x-gateway-* headers */
    gateway: GatewayHeaders | undefined;
  }
}

export {};
