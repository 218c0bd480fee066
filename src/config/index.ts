/** The only module that reads process.env: turns it into a typed, validated config object. */
import { availableParallelism } from 'node:os';
import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface GatewayConfig {
  port: number;
  host: string;
  /** GATEWAY_WORKERS (default: the number of cores): server processes sharing the port (node:cluster); 1 runs no primary */
  workers: number;
  /** graceful shutdown: GATEWAY_SHUTDOWN_DRAIN_MS (default 5000) of /ready answering 503, then up to GATEWAY_SHUTDOWN_TIMEOUT_MS (default 30000) for the requests in flight */
  shutdown: { drainMs: number; timeoutMs: number };
  dataDir: string;
  /**
   * GATEWAY_IDLE_MEMORY_SECONDS (default 30; 0 never): memory given back after this long idle, once the process
   * has served load: the heap collected (runtime/idle-memory.ts), the embedded database's thread restarted on its
   * files (storage/pglite-worker/idle-restart.ts)
   */
  idleMemoryMs: number;
  /** GATEWAY_WASM_COMPILER (default baseline): V8's compilers for the WebAssembly the process runs (runtime/wasm-compiler.ts) */
  wasmCompiler: WasmCompiler;
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
  /** GATEWAY_RESPONSES_TTL_DAYS (default 30): how long the gateway keeps the responses it produced (/v1/responses over chat) */
  responsesTtlMs: number;
  /** the request log: body cap (0 keeps bodies out), days kept, rows held while the database is away */
  requestLog: RequestLogConfig;
  /** OpenTelemetry traces: exported over OTLP/HTTP when an endpoint is set, off otherwise */
  tracing: TracingConfig | undefined;
}

/**
 * V8's compilers for the WebAssembly the gateway runs (the embedded database, PGlite; undici's HTTP parser):
 * `baseline` Liftoff only, `optimizing` TurboFan only, `tiered` V8's default (both). See runtime/wasm-compiler.ts.
 */
export type WasmCompiler = 'baseline' | 'optimizing' | 'tiered';
const WASM_COMPILERS: readonly WasmCompiler[] = ['baseline', 'optimizing', 'tiered'];

/** GATEWAY_WASM_COMPILER; the older GATEWAY_PGLITE_LIFTOFF=on (V8's default compilers) is still read as `tiered`. */
function wasmCompiler(env: NodeJS.ProcessEnv): WasmCompiler {
  const raw = nonEmpty(env.GATEWAY_WASM_COMPILER)?.toLowerCase();
  if (raw === undefined) return onOff(env, 'GATEWAY_PGLITE_LIFTOFF', false) ? 'tiered' : 'baseline';
  if (!(WASM_COMPILERS as readonly string[]).includes(raw)) {
    throw new Error(`GATEWAY_WASM_COMPILER must be one of ${WASM_COMPILERS.join(', ')}, got "${env.GATEWAY_WASM_COMPILER}"`);
  }
  return raw as WasmCompiler;
}

export interface TracingConfig {
  /** the OTLP/HTTP traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces */
  tracesUrl: string;
  /** OTEL_SERVICE_NAME (default `ai-gateway`) */
  serviceName: string;
}

export interface RequestLogConfig {
  /** GATEWAY_REQUEST_LOG (on | off, default on): off stores no rows (metrics and traces still see each request) */
  enabled: boolean;
  /** GATEWAY_LOG_BODY_MAX_BYTES (default 65536): each logged body is cut at this many bytes; 0 logs no bodies */
  bodyMaxBytes: number;
  /** GATEWAY_LOG_RETENTION_DAYS (default 30): whole days of the log kept; older day partitions are dropped */
  retentionDays: number;
  /** GATEWAY_LOG_BUFFER_ROWS (default 50000): rows held in memory while the database cannot take them */
  bufferRows: number;
  /** GATEWAY_LOG_BUFFER_BYTES (default 256 MiB): bytes of those rows held at most */
  bufferBytes: number;
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on' || raw === 'true' || raw === '1') return true;
  if (raw === 'off' || raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be on or off, got "${env[name]}"`);
}

function count(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, got "${raw}"`);
  return value;
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

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got "${value}"`);
  return url.toString();
}

/** The OTLP exporter's endpoint variables, as the OpenTelemetry specification defines them; unset: no tracing. */
function tracingConfig(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || (traces === undefined && base === undefined)) return undefined;
  const tracesUrl = traces !== undefined
    ? httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces)
    : `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base!).replace(/\/+$/, '')}/v1/traces`;
  return { tracesUrl, serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? 'ai-gateway' };
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
    workers: count(env, 'GATEWAY_WORKERS', availableParallelism(), 1),
    shutdown: { drainMs: count(env, 'GATEWAY_SHUTDOWN_DRAIN_MS', 5_000, 0), timeoutMs: count(env, 'GATEWAY_SHUTDOWN_TIMEOUT_MS', 30_000, 0) },
    dataDir: path.resolve(nonEmpty(env.GATEWAY_DATA_DIR) ?? './data'),
    idleMemoryMs: count(env, 'GATEWAY_IDLE_MEMORY_SECONDS', 30, 0) * 1000,
    wasmCompiler: wasmCompiler(env),
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
    responsesTtlMs: count(env, 'GATEWAY_RESPONSES_TTL_DAYS', 30, 1) * 86_400_000,
    requestLog: {
      enabled: onOff(env, 'GATEWAY_REQUEST_LOG', true),
      bodyMaxBytes: count(env, 'GATEWAY_LOG_BODY_MAX_BYTES', 64 * 1024, 0),
      retentionDays: count(env, 'GATEWAY_LOG_RETENTION_DAYS', 30, 1),
      bufferRows: count(env, 'GATEWAY_LOG_BUFFER_ROWS', 50_000, 100),
      bufferBytes: count(env, 'GATEWAY_LOG_BUFFER_BYTES', 256 * 1024 * 1024, 1024 * 1024),
    },
    tracing: tracingConfig(env),
  };
}
