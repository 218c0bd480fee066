/** Starts a real gateway on 127.0.0.1 for one test file: embedded defaults unless a database URL is given. */
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/index.ts';
import { createGateway, type Gateway, type GatewayOverrides } from '../../src/gateway.ts';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';
export const TEST_ENCRYPTION_KEY = '0f'.repeat(32);

/**
 * A chat request's headers through the gateway to a fake OpenAI-compatible upstream taken as a custom host, with the
 * tests' admin key; `extra` adds or overrides headers.
 */
export function customHostHeaders(upstreamBaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'x-gateway-api-key': TEST_ADMIN_KEY,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': upstreamBaseUrl,
    authorization: 'Bearer sk-client',
    'content-type': 'application/json',
    ...extra,
  };
}

export interface TestGateway {
  gateway: Gateway;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** http://127.0.0.1:<port>/v1 */
  baseURL: string;
  adminKey: string;
  close(): Promise<void>;
}

export async function startTestGateway(
  options: { env?: Record<string, string>; databaseUrl?: string; overrides?: GatewayOverrides } = {},
): Promise<TestGateway> {
  const config = loadConfig({
    GATEWAY_ADMIN_API_KEY: TEST_ADMIN_KEY,
    GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    // a fixed key: tests never write a key file into the checkout's data dir
    GATEWAY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  });
  // scripts/run-tests.mjs dumps one migrated database per run: an in-memory gateway starts from it, not from initdb
  const seed = process.env.GATEWAY_TEST_PGLITE_SEED;
  const gateway = await createGateway(config, { pgliteDataDir: 'memory://', ...(seed ? { pgliteSeed: seed } : {}), ...options.overrides });
  await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = gateway.app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return { gateway, origin, baseURL: `${origin}/v1`, adminKey: TEST_ADMIN_KEY, close: () => gateway.close() };
}
