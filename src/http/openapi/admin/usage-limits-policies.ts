/** Usage limits policies (src/http/admin/usage-limits-policies/routes.ts); the answers: usage-limits-policies-schemas.ts. */
import { listRef, ref } from '../components.ts';
import { UUID_SCHEMA, WORKSPACE_FILTER, pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'usage-limits-policies';
const ID = pathParameter('policyUsageLimitsId', 'the policy\'s id', UUID_SCHEMA);
const STATUS = queryParameter('status', 'active (the default) or archived', { type: 'string', enum: ['active', 'archived'] });
const RULES = 'A `cost` budget counts USD, a `tokens` budget tokens; `alert_threshold` must be below `credit_limit`. `on_store_failure` (`closed` by default, or `open`) says what happens while the counter store cannot be reached. See docs/decisions.md for how budgets hold under concurrency.';

export function usageLimitsPolicyPaths(): Paths {
  return {
    '/policies/usage-limits': {
      post: adminOperation({
        operationId: 'createUsageLimitsPolicy',
        summary: 'Create a usage limits policy',
        tag: TAG,
        scope: 'usage_limits_policies.create',
        description: RULES,
        body: 'CreateUsageLimitsPolicyRequest',
        answer: { description: 'the new policy', schema: ref('UsageLimitsPolicyCreated') },
        errors: { 404: 'the workspace is not found, or not visible to the caller' },
      }),
      get: adminOperation({
        operationId: 'listUsageLimitsPolicies',
        summary: 'List usage limits policies',
        tag: TAG,
        scope: 'usage_limits_policies.list',
        parameters: [
          ...pageParameters({ defaultSize: 50, maxSize: 100 }),
          WORKSPACE_FILTER,
          STATUS,
          queryParameter('type', 'cost or tokens', { type: 'string', enum: ['cost', 'tokens'] }),
        ],
        answer: { description: 'the policies the caller can see', schema: listRef('UsageLimitsPolicy', 'usage limits policies') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/policies/usage-limits/{policyUsageLimitsId}': {
      get: adminOperation({
        operationId: 'getUsageLimitsPolicy',
        summary: 'Get a usage limits policy',
        tag: TAG,
        scope: 'usage_limits_policies.read',
        parameters: [ID, STATUS, queryParameter('include_usage', 'true: add value_key_usage_map', { type: 'string', enum: ['true', 'false'] })],
        answer: { description: 'the policy', schema: ref('UsageLimitsPolicy') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateUsageLimitsPolicy',
        summary: 'Update a usage limits policy',
        tag: TAG,
        scope: 'usage_limits_policies.update',
        description: `${RULES} \`periodic_reset: null\` makes the policy cumulative; \`reset_usage_for_value\` zeroes one value key.`,
        parameters: [ID],
        body: 'UpdateUsageLimitsPolicyRequest',
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteUsageLimitsPolicy',
        summary: 'Delete (archive) a usage limits policy',
        tag: TAG,
        scope: 'usage_limits_policies.delete',
        parameters: [ID],
        answer: { description: 'archived', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/policies/usage-limits/{policyUsageLimitsId}/entities': {
      get: adminOperation({
        operationId: 'listUsageLimitsPolicyEntities',
        summary: 'List the value keys a usage limits policy counts',
        tag: TAG,
        scope: 'usage_limits_policies.read',
        parameters: [
          ID,
          ...pageParameters({ defaultSize: 50, maxSize: 100 }),
          queryParameter('status', 'active or exhausted', { type: 'string', enum: ['active', 'exhausted'] }),
          queryParameter('search', 'part of a value key', { type: 'string', minLength: 1, maxLength: 2048 }),
        ],
        answer: { description: 'the entities, with their usage in the current window', schema: listRef('UsageLimitsEntity', 'policy entities') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
    '/policies/usage-limits/{policyUsageLimitsId}/entities/{entityId}/reset': {
      put: adminOperation({
        operationId: 'resetUsageLimitsPolicyEntity',
        summary: 'Zero one entity\'s usage',
        tag: TAG,
        scope: 'usage_limits_policies.update',
        parameters: [ID, pathParameter('entityId', 'the entity\'s id', UUID_SCHEMA)],
        body: 'ResetUsageLimitsEntityRequest',
        bodyRequired: false,
        answer: { description: 'reset', schema: ref('EmptyObject') },
        errors: { 404: 'the policy or the entity is not found, or not visible to the caller' },
      }),
    },
  };
}
