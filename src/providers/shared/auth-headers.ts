/**
 * The header a provider takes its credential in. The gateway receives the credential as the client's
 * `Authorization: Bearer <key>` (ProviderTarget.apiKey) and moves it to the header the provider reads.
 */

export type AuthStyle = 'bearer' | 'api-key' | 'x-api-key' | 'x-goog-api-key';

/** No credential, no header: a keyless local server or a cloud adapter that signs in `prepare` gets none. */
export function authHeaders(style: AuthStyle, apiKey: string | undefined): Record<string, string> {
  if (!apiKey) return {};
  switch (style) {
    case 'bearer':
      return { authorization: `Bearer ${apiKey}` };
    case 'api-key':
      return { 'api-key': apiKey };
    case 'x-api-key':
      return { 'x-api-key': apiKey };
    case 'x-goog-api-key':
      return { 'x-goog-api-key': apiKey };
  }
}
