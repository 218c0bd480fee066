/** Rate-limit and usage-limit policies; a usage policy's consumption per value of its group_by (its entities). */
import { get, type ListPage } from '../api.ts';
import type { PageProps } from '../router.ts';
import { useSession, workspaceQuery } from '../session.ts';
import { Async, Empty, Json, useLoad } from '../ui.tsx';
import { ResourceSection } from './resource.tsx';

interface Policy {
  id: string;
  name: string | null;
  type: string;
  unit?: string;
  value?: number;
  credit_limit?: number;
  group_by: unknown;
  conditions: unknown;
  status: string;
}

function Consumption({ id }: { id: string }) {
  const entities = useLoad(() => get<ListPage<Record<string, unknown>>>(`/policies/usage-limits/${id}/entities`, { page_size: 50 }), [id]);
  return (
    <Async state={entities} what="consumption">
      {(data) => data.total === 0 ? <Empty>Nothing has counted against this policy yet.</Empty> : <Json value={data.data} label="Consumption per value" />}
    </Async>
  );
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function PoliciesPage(_props: PageProps) {
  const session = useSession();
  const query = workspaceQuery(session);
  return (
    <>
      <h1>Limits</h1>
      <ResourceSection<Policy>
        title="Rate-limit policies"
        path="/policies/rate-limits"
        query={query}
        idOf={(row) => row.id}
        nameOf={(row) => row.name ?? row.id}
        empty="No rate-limit policies in this workspace."
        columns={[
          { label: 'Name', cell: (row) => row.name ?? '—' },
          { label: 'Limit', cell: (row) => `${row.value} ${row.type} ${row.unit}` },
          { label: 'Per', cell: (row) => text(row.group_by) },
          { label: 'When', cell: (row) => <code>{text(row.conditions)}</code> },
          { label: 'Status', cell: (row) => row.status },
        ]}
        create={{ permission: session.can('rate_limits_policies.create', 'manager'), label: 'New rate-limit policy',
          example: { name: 'Per key', conditions: [{ key: 'api_key', value: '*' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 60 } }}
        remove={{ permission: session.can('rate_limits_policies.delete', 'manager'), label: 'Delete' }}
      />
      <p class="muted">The API reports no live counts for rate limits: a refused request says how long to wait (retry-after and x-ratelimit-* headers).</p>
      <ResourceSection<Policy>
        title="Usage-limit policies"
        path="/policies/usage-limits"
        query={query}
        idOf={(row) => row.id}
        nameOf={(row) => row.name ?? row.id}
        empty="No usage-limit policies in this workspace."
        columns={[
          { label: 'Name', cell: (row) => row.name ?? '—' },
          { label: 'Budget', cell: (row) => `${row.credit_limit} ${row.type === 'cost' ? 'USD' : 'tokens'}` },
          { label: 'Per', cell: (row) => text(row.group_by) },
          { label: 'Status', cell: (row) => row.status },
        ]}
        create={{ permission: session.can('usage_limits_policies.create', 'manager'), label: 'New usage-limit policy',
          example: { name: 'Monthly per key', conditions: [{ key: 'api_key', value: '*' }], group_by: [{ key: 'api_key' }], type: 'cost', credit_limit: 10, periodic_reset: 'monthly' } }}
        remove={{ permission: session.can('usage_limits_policies.delete', 'manager'), label: 'Delete' }}
        expand={(row) => <Consumption id={row.id} />}
      />
    </>
  );
}
