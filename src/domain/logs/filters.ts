/**
 * From what a caller asks (GET /logs's query, an export's `filters`) to the storage's LogFilter, with the access
 * rule applied here, once: a workspace key sees its own workspace only (naming another is a 404, so its existence
 * does not leak); an organisation admin sees every workspace of the organisation, or the one it names.
 */
import { canAccessWorkspace, isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import { CENTS_SCALE, scaledNumber, usdText } from '../../pricing/money.ts';
import type { Db } from '../../storage/database.ts';
import { findConfig } from '../../storage/repositories/configs.ts';
import type { LogFilter } from '../../storage/repositories/log-queries.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import type { ExportFiltersInput, LogQuery } from './inputs.ts';

/** Whether the caller sees any log at all: workspace keys (their own), organisation owners and admins (all). */
export function seesLogs(principal: Principal): boolean {
  return principal.keyType === 'workspace' || isOrganisationAdmin(principal);
}

export function canSeeLog(principal: Principal, workspaceId: string | null): boolean {
  if (workspaceId === null) return isOrganisationAdmin(principal) && principal.keyType === 'organisation';
  return canAccessWorkspace(principal, workspaceId);
}

/** The workspace the caller's filter is bound to: undefined is every workspace (admins only). */
export async function boundWorkspace(db: Db, principal: Principal, named: string | undefined): Promise<string | undefined> {
  if (named !== undefined) return (await visibleWorkspace(db, principal, named)).id;
  return principal.keyType === 'workspace' ? principal.workspaceId : undefined;
}

function centsAsUsd(cents: number | undefined, param: string): string | undefined {
  if (cents === undefined) return undefined;
  const pico = scaledNumber(cents, CENTS_SCALE);
  if (pico === undefined) throw invalidParam(param, `${param} must be a number of cents of 0 or more, with at most ${CENTS_SCALE} decimals.`);
  return usdText(pico);
}

async function configIds(db: Db, organisationId: string, configs: string[] | undefined): Promise<string[] | undefined> {
  if (!configs?.length) return undefined;
  const ids = await Promise.all(configs.map(async (idOrSlug) => (isUuid(idOrSlug) ? idOrSlug.toLowerCase() : (await findConfig(db, organisationId, idOrSlug))?.id)));
  // an unknown config matches no row (not every row): the all-zero id is never a config's
  return ids.map((id) => id ?? '00000000-0000-0000-0000-000000000000');
}

/** `costParams` name the parameters the cents came from, for the error. */
export async function toLogFilter(db: Db, principal: Principal, query: LogQuery, costParams: [string, string] = ['cost_min', 'cost_max']): Promise<LogFilter> {
  const workspaceId = await boundWorkspace(db, principal, query.workspace);
  return {
    organisationId: principal.organisationId,
    workspaceId,
    startTime: query.startTime,
    endTime: query.endTime,
    apiKeyId: query.apiKeyId,
    providers: query.providers,
    models: query.models,
    providerModels: query.providerModels,
    statuses: query.statuses,
    traceIds: query.traceIds,
    spanIds: query.spanIds,
    metadata: query.metadata as Record<string, string> | undefined,
    costMin: centsAsUsd(query.costMinCents, costParams[0]),
    costMax: centsAsUsd(query.costMaxCents, costParams[1]),
    latencyMin: query.latencyMin,
    latencyMax: query.latencyMax,
    cacheStatuses: query.cacheStatuses,
    totalUnitsMin: query.totalUnitsMin,
    totalUnitsMax: query.totalUnitsMax,
    promptTokensMin: query.promptTokensMin,
    promptTokensMax: query.promptTokensMax,
    completionTokensMin: query.completionTokensMin,
    completionTokensMax: query.completionTokensMax,
    providerSlugs: query.providerSlugs,
    configIds: await configIds(db, principal.organisationId, query.configs),
    promptSlugs: query.promptSlugs,
    weightedFeedbackMin: query.weightedFeedbackMin,
    weightedFeedbackMax: query.weightedFeedbackMax,
  };
}

function commaList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
  return items.length > 0 ? items : undefined;
}

function time(value: string | undefined, param: string): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(parsed.getTime())) throw invalidParam(`filters.${param}`, `filters.${param} must be an ISO-8601 date-time.`);
  return parsed;
}

function statuses(value: string | undefined, param: string): number[] | undefined {
  const items = commaList(value);
  if (!items) return undefined;
  return items.map((item) => {
    if (!/^[1-5]\d\d$/.test(item)) throw invalidParam(param, `${param} must be a comma-separated list of HTTP status codes.`);
    return Number(item);
  });
}

function providerModels(value: string | undefined, param: string): Array<[string, string]> | undefined {
  const items = commaList(value);
  if (!items) return undefined;
  return items.map((item) => {
    const at = item.indexOf('__');
    if (at <= 0 || at + 2 >= item.length) throw invalidParam(param, `${param} must be a comma-separated list of provider__model pairs.`);
    return [item.slice(0, at), item.slice(at + 2)];
  });
}

function ordered(min: number | undefined, max: number | undefined, param: string): void {
  if (min !== undefined && max !== undefined && min > max) throw invalidParam(param, `${param} must not be below the matching _min.`);
}

/** An export's stored `filters` (the reference's GenerationsFilterSchema) as a LogQuery. Shape checked by the transport. */
export function exportFiltersQuery(filters: ExportFiltersInput): LogQuery {
  const startTime = time(filters.time_of_generation_min, 'time_of_generation_min');
  const endTime = time(filters.time_of_generation_max, 'time_of_generation_max');
  if (startTime && endTime && startTime > endTime) throw invalidParam('filters.time_of_generation_max', 'filters.time_of_generation_max must not be before filters.time_of_generation_min.');
  ordered(filters.total_units_min, filters.total_units_max, 'filters.total_units_max');
  ordered(filters.cost_min, filters.cost_max, 'filters.cost_max');
  ordered(filters.prompt_token_min, filters.prompt_token_max, 'filters.prompt_token_max');
  ordered(filters.completion_token_min, filters.completion_token_max, 'filters.completion_token_max');
  ordered(filters.weighted_feedback_min, filters.weighted_feedback_max, 'filters.weighted_feedback_max');
  return {
    startTime,
    endTime,
    workspace: filters.workspace_slug,
    models: commaList(filters.ai_model),
    providerModels: providerModels(filters.ai_org_model, 'filters.ai_org_model'),
    statuses: statuses(filters.status_code, 'filters.status_code'),
    traceIds: commaList(filters.trace_id),
    metadata: filters.metadata,
    costMinCents: filters.cost_min,
    costMaxCents: filters.cost_max,
    totalUnitsMin: filters.total_units_min,
    totalUnitsMax: filters.total_units_max,
    promptTokensMin: filters.prompt_token_min,
    promptTokensMax: filters.prompt_token_max,
    completionTokensMin: filters.completion_token_min,
    completionTokensMax: filters.completion_token_max,
    providerSlugs: commaList(filters.virtual_keys),
    configs: commaList(filters.configs),
    promptSlugs: commaList(filters.prompt_slug),
    weightedFeedbackMin: filters.weighted_feedback_min,
    weightedFeedbackMax: filters.weighted_feedback_max,
  };
}
