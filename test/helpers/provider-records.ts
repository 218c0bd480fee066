/**
 * Integration rows for the provider tests, written straight into the tables (the integrations group has its own
 * tests): an organisation or workspace integration with a sealed key, its settings, and workspace access.
 */
import { randomUUID } from 'node:crypto';
import type { SecretCipher } from '../../src/secrets/cipher.ts';
import type { Db } from '../../src/storage/database.ts';
import { integrations, integrationWorkspaces } from '../../src/storage/schema.ts';

export interface IntegrationFixture {
  organisationId: string;
  slug?: string;
  aiProviderId?: string;
  /** sealed with `cipher` */
  key?: string;
  workspaceId?: string | null;
  configurations?: Record<string, string>;
  /** global workspace access */
  global?: boolean;
  status?: 'active' | 'archived';
  secretMappings?: unknown[];
}

export async function insertIntegration(db: Db, cipher: SecretCipher, fixture: IntegrationFixture) {
  const [row] = await db
    .insert(integrations)
    .values({
      organisationId: fixture.organisationId,
      workspaceId: fixture.workspaceId ?? null,
      slug: fixture.slug ?? `integration-${randomUUID().slice(0, 8)}`,
      name: fixture.slug ?? 'Integration',
      aiProviderId: fixture.aiProviderId ?? 'openai',
      sealedKey: fixture.key === undefined ? null : cipher.seal(fixture.key),
      maskedKey: fixture.key === undefined ? null : `${fixture.key.slice(0, 4)}********`,
      configurations: fixture.configurations ?? {},
      globalWorkspaceAccess: fixture.global ? { enabled: true } : null,
      status: fixture.status ?? 'active',
      secretMappings: fixture.secretMappings ?? [],
    })
    .returning();
  return row!;
}

export async function setIntegrationAccess(db: Db, integrationId: string, workspaceId: string, enabled: boolean): Promise<void> {
  await db
    .insert(integrationWorkspaces)
    .values({ integrationId, workspaceId, enabled })
    .onConflictDoUpdate({ target: [integrationWorkspaces.integrationId, integrationWorkspaces.workspaceId], set: { enabled } });
}
