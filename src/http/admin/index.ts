/** The admin (control-plane) API: one folder per resource group, registered here. */
import type { FastifyInstance } from 'fastify';
import type { AdminDeps } from './admin-route.ts';
import { registerAnalyticsRoutes } from './analytics/routes.ts';
import { registerApiKeyRoutes } from './api-keys/routes.ts';
import { registerAuditLogRoutes } from './audit-logs/routes.ts';
import { registerConfigRoutes } from './configs/routes.ts';
import { registerFeedbackRoutes } from './feedback/routes.ts';
import { registerGuardrailRoutes } from './guardrails/routes.ts';
import { registerPromptRoutes } from './prompts/routes.ts';
import { registerCollectionRoutes } from './prompt-collections/routes.ts';
import { registerLabelRoutes } from './labels/routes.ts';
import { registerPromptPartialRoutes } from './prompt-partials/routes.ts';
import { registerModelPricingRoutes } from './model-pricing/routes.ts';
import { registerMcpIntegrationRoutes } from './mcp-integrations/routes.ts';
import { registerMcpServerRoutes } from './mcp-servers/routes.ts';
import { registerIntegrationRoutes } from './integrations/routes.ts';
import { registerLogRoutes } from './logs/routes.ts';
import { registerOrganisationRoutes } from './organisation/routes.ts';
import { registerProviderRoutes } from './providers/routes.ts';
import { registerVirtualKeyRoutes } from './virtual-keys/routes.ts';
import { registerRateLimitsPolicyRoutes } from './rate-limits-policies/routes.ts';
import { registerScimRoutes } from './scim/routes.ts';
import { registerSecretReferenceRoutes } from './secret-references/routes.ts';
import { registerUsageLimitsPolicyRoutes } from './usage-limits-policies/routes.ts';
import { registerInviteRoutes } from './users/invites-routes.ts';
import { registerUserRoutes } from './users/routes.ts';
import { registerWorkspaceRoutes } from './workspaces/routes.ts';

export type { AdminDeps } from './admin-route.ts';

export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  registerAnalyticsRoutes(app, deps);
  registerApiKeyRoutes(app, deps);
  registerAuditLogRoutes(app, deps);
  registerConfigRoutes(app, deps);
  registerFeedbackRoutes(app, deps);
  registerGuardrailRoutes(app, deps);
  registerPromptRoutes(app, deps);
  registerCollectionRoutes(app, deps);
  registerLabelRoutes(app, deps);
  registerPromptPartialRoutes(app, deps);
  registerModelPricingRoutes(app, deps);
  registerMcpIntegrationRoutes(app, deps);
  registerMcpServerRoutes(app, deps);
  registerIntegrationRoutes(app, deps);
  registerLogRoutes(app, deps);
  registerOrganisationRoutes(app, deps);
  const status = deps.providerExhausted ? { isExhausted: deps.providerExhausted } : {};
  registerProviderRoutes(app, deps, status);
  registerVirtualKeyRoutes(app, deps, status);
  registerRateLimitsPolicyRoutes(app, deps);
  registerSecretReferenceRoutes(app, deps);
  registerUserRoutes(app, deps);
  registerInviteRoutes(app, deps);
  registerWorkspaceRoutes(app, deps);
  registerUsageLimitsPolicyRoutes(app, deps);
  registerScimRoutes(app, deps);
}
