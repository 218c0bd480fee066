/** What the analytics use cases take: the common filters of api-surface §3.20, parsed (the transport checks their form). */
import type { AnalyticsFilters } from '../../storage/repositories/analytics.ts';

export interface AnalyticsInput {
  /** the workspace (slug or id) an organisation key asks about; ignored for a workspace key */
  workspaceSlug?: string | undefined;
  /** time_of_generation_min / _max; default: the 7 days up to now */
  from?: Date | undefined;
  to?: Date | undefined;
  /** the filters, with `cost` in cents as the API gives it */
  filters: AnalyticsFilters;
}

export interface PageInput {
  offset: number;
  limit: number;
}
