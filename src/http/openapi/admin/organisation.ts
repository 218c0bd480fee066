/** Organisation settings (src/http/admin/organisation/routes.ts): admin keys only. */
import { ref } from '../components.ts';
import type { Paths } from '../types.ts';
import { adminOperation } from './operation.ts';

const TAG = 'organisation';

export function organisationPaths(): Paths {
  return {
    '/admin/organisation': {
      get: adminOperation({
        operationId: 'getOrganisation',
        summary: 'Get the organisation and its settings',
        tag: TAG,
        scope: 'organisations.read',
        description: 'Admin keys only.',
        answer: { description: 'the organisation', schema: ref('Organisation') },
        errors: { 404: 'the caller\'s organisation no longer exists' },
      }),
      put: adminOperation({
        operationId: 'updateOrganisation',
        summary: 'Update the organisation\'s name and JWT settings',
        tag: TAG,
        scope: 'organisations.update',
        description: 'Admin keys only. settings.jwt (JWKS URL, issuer, audience) decides which JWTs authenticate; null removes it. Takes effect on every node at once.',
        body: 'UpdateOrganisationRequest',
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: 'the caller\'s organisation no longer exists' },
      }),
    },
  };
}
