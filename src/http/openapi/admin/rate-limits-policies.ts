/** Rate limits policies (src/http/admin/rate-limits-policies/routes.ts); the answers: rate-limits-policies-schemas.ts. */
import { POLICY_STATUSES, POLICY_TYPES, POLICY_UNITS } from '../../admin/rate-limits-policies/schemas.ts';
import { listRef, ref } from '../components.ts';
import { UUID_SCHEMA, WORKSPACE_FILTER, pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'rate-limits-policies';
const ID = pathParameter('rateLimitsPolicyId', 'the policy\'s id (a UUID; anything else is a 400)', UUID_SCHEMA);
const STATUS = queryParameter('status', 'active (the default) or archived', { type: 'string', enum: [...POLICY_STATUSES] });
const RULES = [
  'A policy counts the requests its `conditions` match (keys `api_key`, `organisation_id`, `workspace_id`, `provider`,',
  '`metadata.<name>`), per value of its `group_by`. `requests` policies count each request before it reaches a provider;',
  '`tokens` policies count an answer\'s tokens after it and refuse the next request once the window is full. A refused',
  'request is a 429 with `retry-after` and `x-ratelimit-*`. Windows roll (docs/decisions.md). While the counter store',
  'cannot be reached a policy fails open (the default: requests pass) or, with `on_store_failure: closed`, answers 503.',
].join(' ');
const STORE_FAILED = 'the store failed; nothing was written';

export function rateLimitsPolicyPaths(): Paths {
  return {
    '/policies/rate-limits': {
      post: adminOperation({
        operationId: 'createRateLimitsPolicy',
        summary: 'Create a rate limits policy',
        tag: TAG,
        scope: 'rate_limits_policies.create',
        description: RULES,
        body: 'CreateRateLimitsPolicyRequest',
        answer: { description: 'the new policy', schema: ref('RateLimitsPolicyCreated') },
        errors: { 404: 'the workspace is not found, or not visible to the caller', 500: STORE_FAILED },
      }),
      get: adminOperation({
        operationId: 'listRateLimitsPolicies',
        summary: 'List rate limits policies',
        tag: TAG,
        scope: 'rate_limits_policies.list',
        parameters: [
          ...pageParameters({ defaultSize: 50, maxSize: 100 }),
          WORKSPACE_FILTER,
          STATUS,
          queryParameter('type', 'requests or tokens', { type: 'string', enum: [...POLICY_TYPES] }),
          queryParameter('unit', 'rpm, rph or rpd', { type: 'string', enum: [...POLICY_UNITS] }),
        ],
        answer: { description: 'the policies the caller can see', schema: listRef('RateLimitsPolicy', 'rate limits policies') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/policies/rate-limits/{rateLimitsPolicyId}': {
      get: adminOperation({
        operationId: 'getRateLimitsPolicy',
        summary: 'Get a rate limits policy',
        tag: TAG,
        scope: 'rate_limits_policies.read',
        parameters: [ID, STATUS],
        answer: { description: 'the policy', schema: ref('RateLimitsPolicy') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateRateLimitsPolicy',
        summary: 'Update a rate limits policy',
        tag: TAG,
        scope: 'rate_limits_policies.update',
        description: 'Every field is optional (`{}` changes nothing). A changed `value` applies to the next request on every node; a changed `unit` starts the counters afresh; a changed `on_store_failure` applies from the next store failure.',
        parameters: [ID],
        body: 'UpdateRateLimitsPolicyRequest',
        answer: { description: 'updated', schema: ref('EmptyObject') },
        errors: { 404: 'policy not found (or not visible to the caller)', 500: STORE_FAILED },
      }),
      delete: adminOperation({
        operationId: 'deleteRateLimitsPolicy',
        summary: 'Delete (archive) a rate limits policy',
        tag: TAG,
        scope: 'rate_limits_policies.delete',
        description: 'The policy stops counting at once; it is read back with `status=archived`.',
        parameters: [ID],
        answer: { description: 'archived', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND_OR_HIDDEN, 500: STORE_FAILED },
      }),
    },
  };
}
