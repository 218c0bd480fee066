/**
 * The console's only way to the gateway: the public /v1 admin API on this origin, with the signed-in key in
 * `x-gateway-api-key`. The key lives in sessionStorage (gone when the tab closes; never in a URL or a cookie).
 */
const STORAGE_KEY = 'gateway-console-key';

export function storedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** An error the API answered, in its error shape; `param` names the field at fault. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly param: string | null, readonly code: string | null) {
    super(message);
  }
}

export interface ApiOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  headers?: Record<string, string>;
  /** another key than the signed-in one (the config page's "try it") */
  key?: string;
}

export function withQuery(path: string, query: ApiOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function errorOf(status: number, body: unknown): ApiError {
  const error = (body as { error?: { message?: unknown; param?: unknown; code?: unknown } } | null)?.error;
  if (error && typeof error.message === 'string') {
    return new ApiError(status, error.message, typeof error.param === 'string' ? error.param : null, typeof error.code === 'string' ? error.code : null);
  }
  return new ApiError(status, `The gateway answered ${status} without an error message.`, null, null);
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Any call, answered as it came (status, headers, parsed body): "try it" shows all three. */
export async function rawCall(method: string, path: string, options: ApiOptions = {}): Promise<RawAnswer> {
  const key = options.key ?? storedKey();
  const headers: Record<string, string> = { ...options.headers };
  if (key) headers['x-gateway-api-key'] = key;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(withQuery(`/v1${path}`, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The gateway could not be reached. Check that it is running and your network.', null, 'network_error');
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, headers: response.headers, body };
}

/** An admin call: the parsed body on success, an ApiError otherwise. */
export async function api<T = any>(method: string, path: string, options: ApiOptions = {}): Promise<T> {
  const answer = await rawCall(method, path, options);
  if (answer.status >= 400) throw errorOf(answer.status, answer.body);
  return answer.body as T;
}

export const get = <T = any>(path: string, query?: ApiOptions['query']) => api<T>('GET', path, { query });

export interface ListPage<T> {
  object: 'list';
  total: number;
  data: T[];
}

/** Plain words for an error, whatever it was. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return `The gateway refused the key: ${error.message}`;
    if (error.status === 403) return `Not allowed: ${error.message}`;
    if (error.status === 404) return `Not found: ${error.message}`;
    if (error.status >= 500) return `The gateway failed (${error.status}): ${error.message}`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
