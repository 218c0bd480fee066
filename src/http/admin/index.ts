/** The admin (control-plane) API: one folder per resource group, registered here. */
import type { FastifyInstance } from 'fastify';
import type { AdminDeps } from './admin-route.ts';
import { registerApiKeyRoutes } from './api-keys/routes.ts';
import { registerAuditLogRoutes } from './audit-logs/routes.ts';
import { registerConfigRoutes } from './configs/routes.ts';
import { registerGuardrailRoutes } from './guardrails/routes.ts';
import { registerOrganisationRoutes } from './organisation/routes.ts';
import { registerInviteRoutes } from './users/invites-routes.ts';
import { registerUserRoutes } from './users/routes.ts';
import { registerWorkspaceRoutes } from './workspaces/routes.ts';

export type { AdminDeps } from './admin-route.ts';

export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  registerApiKeyRoutes(app, deps);
  registerAuditLogRoutes(app, deps);
  registerConfigRoutes(app, deps);
  registerGuardrailRoutes(app, deps);
  registerOrganisationRoutes(app, deps);
  registerUserRoutes(app, deps);
  registerInviteRoutes(app, deps);
  registerWorkspaceRoutes(app, deps);
}
