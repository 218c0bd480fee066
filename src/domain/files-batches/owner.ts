/** Who creates a provider object through the gateway, and at which provider: what every record keeps. */
import type { Principal } from '../../core/context.ts';

export interface Owner {
  organisationId: string;
  workspaceId: string;
  apiKeyId: string | null;
  userId: string | null;
  /** the adapter's name */
  provider: string;
  providerSlug: string | null;
  integrationId: string | null;
}

export function ownerOf(principal: Principal, provider: string, saved: { slug: string; integrationId: string } | undefined): Owner {
  return {
    organisationId: principal.organisationId,
    workspaceId: principal.workspaceId,
    // a JWT's key id is its jti or subject, not a key of ours
    apiKeyId: principal.kind === 'api_key' ? principal.keyId : null,
    userId: principal.userId,
    provider,
    providerSlug: saved?.slug ?? null,
    integrationId: saved?.integrationId ?? null,
  };
}
