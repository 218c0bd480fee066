/**
 * Rate-limit and usage-limit policies, created and edited with labelled forms (conditions as JSON), each with its
 * current consumption: a rate-limit policy's live counts of the current window (GET /policies/rate-limits/{id}
 * `usage`), a usage-limit policy's use per value of its group_by (its entities).
 */
import { api, get, type ListPage } from '../api.ts';
import { FieldForm, fieldText, type Field } from '../form.tsx';
import type { PageProps } from '../router.ts';
import { useSession, workspaceQuery } from '../session.ts';
import { Async, Empty, formatTime, useLoad } from '../ui.tsx';
import { ResourceSection } from './resource.tsx';

interface Policy {
  id: string;
  name: string | null;
  type: string;
  unit?: string;
  value?: number;
  on_store_failure?: string;
  credit_limit?: number;
  alert_threshold?: number | null;
  periodic_reset?: string | null;
  group_by: unknown;
  conditions: unknown;
  status: string;
}

interface RateUsage {
  entity: string;
  window_start: string;
  count: number;
  limit: number;
}

interface Entity {
  id: string;
  value_key?: string;
  current_usage?: number;
  status?: string;
}

const RATE_EDIT: Field[] = [
  { name: 'name', label: 'Name' },
  { name: 'value', label: 'Limit', kind: 'number', required: true },
  { name: 'unit', label: 'Per', kind: 'select', options: ['rpm', 'rph', 'rpd'], required: true, hint: 'rpm: a rolling minute; rph: an hour; rpd: a day.' },
  { name: 'on_store_failure', label: 'While the counter store is down', kind: 'select', options: ['open', 'closed'], required: true, hint: 'open: let requests through; closed: refuse them (503).' },
];

const MATCH_HINT = 'Keys: api_key, workspace_id, organisation_id, provider, metadata.<name>.';

const RATE_CREATE: Field[] = [
  RATE_EDIT[0]!,
  { name: 'type', label: 'Counts', kind: 'select', options: ['requests', 'tokens'], required: true },
  ...RATE_EDIT.slice(1),
  { name: 'group_by', label: 'Count per (comma-separated keys)', kind: 'keys', required: true, hint: MATCH_HINT },
  { name: 'conditions', label: 'Applies when (JSON)', kind: 'json', required: true, hint: 'Every key must match one of its values.' },
];

const USAGE_EDIT: Field[] = [
  { name: 'name', label: 'Name' },
  { name: 'credit_limit', label: 'Budget', kind: 'number', required: true, hint: 'USD for a cost budget, tokens for a tokens budget.' },
  { name: 'alert_threshold', label: 'Alert at', kind: 'number' },
  { name: 'periodic_reset', label: 'Resets', kind: 'select', options: ['', 'weekly', 'monthly'] },
];

const USAGE_CREATE: Field[] = [
  USAGE_EDIT[0]!,
  { name: 'type', label: 'Budget of', kind: 'select', options: ['cost', 'tokens'], required: true },
  ...USAGE_EDIT.slice(1),
  { name: 'group_by', label: 'Count per (comma-separated keys)', kind: 'keys', required: true, hint: MATCH_HINT },
  { name: 'conditions', label: 'Applies when (JSON)', kind: 'json', required: true, hint: 'Every key must match one of its values.' },
];

function RateConsumption({ id }: { id: string }) {
  const policy = useLoad(() => get<{ usage: RateUsage[] | null }>(`/policies/rate-limits/${id}`), [id]);
  return (
    <Async state={policy} what="consumption">
      {(data) => data.usage === null ? <p class="notice" role="note">The counter store cannot be read right now: the counts are unknown.</p>
        : data.usage.length === 0 ? <Empty>Nothing counted in the current window.</Empty> : (
          <table class="compact" data-testid="rate-usage">
            <caption class="sr-only">Counts in the current window</caption>
            <thead><tr><th scope="col">Counted per</th><th scope="col">Used</th><th scope="col">Window from</th></tr></thead>
            <tbody>
              {data.usage.map((entry) => (
                <tr key={entry.entity}>
                  <td><code>{entry.entity}</code></td>
                  <td><meter min={0} max={entry.limit} value={entry.count} aria-label={`${entry.count} of ${entry.limit}`} /> {entry.count} of {entry.limit}</td>
                  <td>{formatTime(entry.window_start)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
    </Async>
  );
}

function UsageConsumption({ id }: { id: string }) {
  const entities = useLoad(() => get<ListPage<Entity>>(`/policies/usage-limits/${id}/entities`, { page_size: 50 }), [id]);
  return (
    <Async state={entities} what="consumption">
      {(data) => data.total === 0 ? <Empty>Nothing has counted against this policy yet.</Empty> : (
        <table class="compact" data-testid="usage-entities">
          <thead><tr><th scope="col">Counted per</th><th scope="col">Used</th><th scope="col">Status</th></tr></thead>
          <tbody>{data.data.map((entity) => <tr key={entity.id}><td><code>{entity.value_key ?? entity.id}</code></td><td>{entity.current_usage ?? '—'}</td><td>{entity.status ?? '—'}</td></tr>)}</tbody>
        </table>
      )}
    </Async>
  );
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function initialOf(fields: readonly Field[], row: Policy): Record<string, string> {
  return Object.fromEntries(fields.map((field) => [field.name, fieldText(field, (row as unknown as Record<string, unknown>)[field.name])]));
}

export function PoliciesPage(_props: PageProps) {
  const session = useSession();
  const query = workspaceQuery(session);
  const workspace = session.workspaceId ?? session.identity.workspaceId;
  const conditions = JSON.stringify(workspace ? [{ key: 'workspace_id', value: workspace }] : [{ key: 'organisation_id', value: '' }], null, 2);
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
        create={{
          permission: session.can('rate_limits_policies.create', 'manager'),
          label: 'New rate-limit policy',
          form: (done) => (
            <FieldForm id="new-rate-policy" fields={RATE_CREATE} submitLabel="Create rate-limit policy" onDone={done}
              initial={{ type: 'requests', unit: 'rpm', value: '60', on_store_failure: 'open', group_by: 'api_key', conditions }}
              onSubmit={(body) => api('POST', '/policies/rate-limits', { body: { ...body, ...query } })} />
          ),
        }}
        edit={{
          permission: session.can('rate_limits_policies.update', 'manager'),
          form: (row, done) => (
            <FieldForm id={`edit-rate-${row.id}`} fields={RATE_EDIT} initial={initialOf(RATE_EDIT, row)} submitLabel="Save rate-limit policy" onDone={done}
              onSubmit={(body) => api('PUT', `/policies/rate-limits/${row.id}`, { body })} />
          ),
        }}
        remove={{ permission: session.can('rate_limits_policies.delete', 'manager'), label: 'Delete' }}
        expand={(row) => <RateConsumption id={row.id} />}
      />
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
        create={{
          permission: session.can('usage_limits_policies.create', 'manager'),
          label: 'New usage-limit policy',
          form: (done) => (
            <FieldForm id="new-usage-policy" fields={USAGE_CREATE} submitLabel="Create usage-limit policy" onDone={done}
              initial={{ type: 'cost', credit_limit: '10', periodic_reset: 'monthly', group_by: 'api_key', conditions }}
              onSubmit={(body) => api('POST', '/policies/usage-limits', { body: { ...body, ...query } })} />
          ),
        }}
        edit={{
          permission: session.can('usage_limits_policies.update', 'manager'),
          form: (row, done) => (
            <FieldForm id={`edit-usage-${row.id}`} fields={USAGE_EDIT} initial={initialOf(USAGE_EDIT, row)} submitLabel="Save usage-limit policy" onDone={done}
              onSubmit={(body) => api('PUT', `/policies/usage-limits/${row.id}`, { body: { periodic_reset: null, ...body } })} />
          ),
        }}
        remove={{ permission: session.can('usage_limits_policies.delete', 'manager'), label: 'Delete' }}
        expand={(row) => <UsageConsumption id={row.id} />}
      />
    </>
  );
}
