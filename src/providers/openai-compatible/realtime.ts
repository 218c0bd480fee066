/**
 * The provider side of a Realtime session (GET /v1/realtime, a WebSocket): where the provider's realtime socket is
 * and how it authenticates. OpenAI's is `<base>/realtime?model=...` over wss, with the key as a bearer token and the
 * `OpenAI-Beta: realtime=v1` header (https://platform.openai.com/docs/guides/realtime-websocket). A custom host
 * `http://host:port/v1` becomes `ws://host:port/v1/realtime`. Providers without a realtime socket answer undefined.
 */
import type { ProviderTarget } from '../contract.ts';

/** The providers whose realtime socket has OpenAI's shape. */
const REALTIME_PROVIDERS: ReadonlySet<string> = new Set(['openai']);

export interface RealtimeConnection {
  /** ws:// or wss:// URL of the provider's socket, the client's query string kept */
  url: string;
  headers: Record<string, string>;
}

/** The provider's realtime socket for a resolved target; `query` is the client's query string (without `?`). */
export function realtimeConnection(target: ProviderTarget, query: string): RealtimeConnection | undefined {
  if (!REALTIME_PROVIDERS.has(target.provider)) return undefined;
  const base = target.baseUrl.replace(/^http(s?):\/\//i, (_match, secure: string) => (secure ? 'wss://' : 'ws://'));
  const headers: Record<string, string> = { 'OpenAI-Beta': 'realtime=v1' };
  if (target.apiKey !== undefined) headers.Authorization = `Bearer ${target.apiKey}`;
  return { url: `${base}/realtime${query ? `?${query}` : ''}`, headers };
}
