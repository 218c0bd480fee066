/** The only module that reads process.env: turns it into a typed, validated config object. */
import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface GatewayConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  adminApiKey: string | undefined;
  /** the organisation owner's email: the bootstrap creates that user on the first start */
  ownerEmail: string;
  encryptionKey: string | undefined;
  /** GATEWAY_ENCRYPTION_KEYS_PREVIOUS: older keys that still open values sealed before a rotation */
  previousEncryptionKeys: string | undefined;
  customHostAllowlist: string[];
  headersToMask: string[];
  logLevel: LogLevel;
  jwksUrl: string | undefined;
}

/** `GATEWAY_OWNER_EMAIL` when unset: `.localhost` is reserved (RFC 6761), so it never reaches anyone by mistake. */
export const DEFAULT_OWNER_EMAIL = 'owner@gateway.localhost';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function list(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim().length > 0 ? value.trim() : undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const port = env.PORT === undefined || env.PORT === '' ? 8787 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer between 0 and 65535, got "${env.PORT}"`);
  }
  const logLevel = (env.LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const adminApiKey = nonEmpty(env.GATEWAY_ADMIN_API_KEY);
  if (adminApiKey !== undefined && adminApiKey.length < 16) {
    throw new Error('GATEWAY_ADMIN_API_KEY must be at least 16 characters long');
  }
  const ownerEmail = (nonEmpty(env.GATEWAY_OWNER_EMAIL) ?? DEFAULT_OWNER_EMAIL).toLowerCase();
  if (!EMAIL.test(ownerEmail) || ownerEmail.length > 320) {
    throw new Error(`GATEWAY_OWNER_EMAIL must be an email address, got "${env.GATEWAY_OWNER_EMAIL}"`);
  }
  return {
    port,
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    dataDir: path.resolve(nonEmpty(env.GATEWAY_DATA_DIR) ?? './data'),
    databaseUrl: nonEmpty(env.DATABASE_URL),
    redisUrl: nonEmpty(env.REDIS_URL),
    adminApiKey,
    ownerEmail,
    encryptionKey: nonEmpty(env.GATEWAY_ENCRYPTION_KEY),
    previousEncryptionKeys: nonEmpty(env.GATEWAY_ENCRYPTION_KEYS_PREVIOUS),
    customHostAllowlist: list(env.GATEWAY_CUSTOM_HOST_ALLOWLIST),
    headersToMask: list(env.ORGANISATION_HEADERS_TO_MASK).map((name) => name.toLowerCase()),
    logLevel,
    jwksUrl: nonEmpty(env.GATEWAY_JWKS_URL),
  };
}
