/** A tiny JSON client for the admin API over real HTTP (undici). */
import { request } from 'undici';

export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

export function adminClient(baseURL: string) {
  return async function call<T = any>(method: string, path: string, key: string | undefined, body?: unknown): Promise<JsonResponse<T>> {
    const response = await request(`${baseURL}${path}`, {
      method: method as 'GET',
      headers: {
        ...(key ? { 'x-gateway-api-key': key } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
}
