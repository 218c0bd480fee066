/** What every manager client is given for one fetch: the guarded HTTP client, the token cache, the clock. */
import type { ReferenceLabel } from './errors.ts';
import type { ManagerHttp } from './http.ts';
import type { TokenCache } from './token-cache.ts';

export interface ManagerCall {
  http: ManagerHttp;
  tokens: TokenCache;
  /** names the secret reference in every message */
  label: ReferenceLabel;
  /** epoch milliseconds (SigV4's signing date, token lifetimes) */
  now: () => number;
}
