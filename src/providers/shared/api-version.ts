/**
 * API version segments in base URLs. A custom host (x-gateway-custom-host) reaches an adapter as given, without
 * its trailing slash; providers whose reference form for it is the bare origin (Gemini, Vertex AI, Ollama) must
 * still reach the versioned paths, while a base that already names a version keeps it.
 *
 * The rule: a base URL names a version when its last path segment is `v` + digits, optionally followed by `alpha`
 * or `beta` and digits (v1, v2, v1beta, v1beta1, v1alpha). Anything else, the bare origin or a proxy prefix such
 * as https://proxy.example/google, does not, and gets the provider's version appended.
 */

const VERSION_SEGMENT = /^v\d+(?:(?:alpha|beta)\d*)?$/;

/** The last path segment of a base URL (empty for a bare origin). */
function lastSegment(baseUrl: string): string {
  const { pathname } = new URL(baseUrl);
  return pathname.replace(/\/+$/, '').split('/').pop() ?? '';
}

export function namesVersion(baseUrl: string): boolean {
  return VERSION_SEGMENT.test(lastSegment(baseUrl));
}

/** `baseUrl` as it is when it names a version; otherwise `baseUrl/version`. */
export function withVersion(baseUrl: string, version: string): string {
  return namesVersion(baseUrl) ? baseUrl : `${baseUrl}/${version}`;
}

/** `baseUrl` without a trailing version segment: for APIs whose paths carry their own version (Cohere's /v2/chat). */
export function withoutVersion(baseUrl: string): string {
  return namesVersion(baseUrl) ? baseUrl.replace(/\/[^/]+\/*$/, '') : baseUrl;
}
