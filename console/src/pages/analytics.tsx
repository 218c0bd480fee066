/**
 * Analytics: the API's graphs (requests, errors, latency percentiles, tokens, cost) over a range, as charts with
 * the API's own summary numbers, and its groups (by model, provider, API key, user or a metadata key's value). Filters are the
 * API's: a range, API key ids, models.
 */
import { useState } from 'preact/hooks';
import { get, type ListPage } from '../api.ts';
import { Chart, type DataPoint } from '../chart.tsx';
import type { PageProps } from '../router.ts';
import { useSession } from '../session.ts';
import { Async, Empty, Pager, useLoad } from '../ui.tsx';

interface Graph {
  summary: Record<string, unknown>;
  data_points: DataPoint[];
}

const GRAPHS = [
  ['requests', 'Requests', ''],
  ['errors', 'Errors', ''],
  ['latency', 'Latency', 'ms'],
  ['tokens', 'Tokens', ''],
  ['cost', 'Cost', '¢'],
] as const;

const RANGES = [['1', 'Last hour'], ['24', 'Last 24 hours'], ['168', 'Last 7 days'], ['720', 'Last 30 days']] as const;
const GROUPS = [['ai-models', 'Model'], ['providers', 'Provider'], ['api-keys', 'API key'], ['users', 'User'], ['metadata', 'Metadata value']] as const;
const GROUP_PAGE = 20;

function summaryText(summary: Record<string, unknown>): string {
  return Object.entries(summary).map(([name, value]) => `${name} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`).join(' · ') || '—';
}

function Groups({ query }: { query: Record<string, string> }) {
  const [by, setBy] = useState<string>('ai-models');
  const [metadataKey, setMetadataKey] = useState('');
  const [page, setPage] = useState(0);
  const path = by === 'metadata' ? `/analytics/groups/metadata/${encodeURIComponent(metadataKey)}` : `/analytics/groups/${by}`;
  const groups = useLoad(
    () => (by === 'metadata' && !metadataKey ? Promise.resolve({ object: 'list' as const, total: 0, data: [] }) : get<ListPage<Record<string, unknown>>>(path, { ...query, current_page: page, page_size: GROUP_PAGE })),
    [path, JSON.stringify(query), page],
  );
  return (
    <section aria-labelledby="groups-title">
      <h2 id="groups-title">Grouped</h2>
      <div class="row wrap">
        <label>Group by<select value={by} onChange={(event) => { setBy((event.target as HTMLSelectElement).value); setPage(0); }}>{GROUPS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}</select></label>
        {by === 'metadata' && <label>Metadata key<input value={metadataKey} onChange={(event) => setMetadataKey((event.target as HTMLInputElement).value)} /></label>}
      </div>
      <Async state={groups} what="groups">
        {(data) => data.total === 0 ? <Empty>{by === 'metadata' && !metadataKey ? 'Name a metadata key.' : 'No requests in this range.'}</Empty> : (
          <>
            <div class="table-wrap">
              <table data-testid="analytics-groups">
                <thead><tr>{Object.keys(data.data[0] ?? {}).filter((name) => name !== 'object').map((name) => <th key={name} scope="col">{name}</th>)}</tr></thead>
                <tbody>
                  {data.data.map((row, index) => (
                    <tr key={index}>{Object.entries(row).filter(([name]) => name !== 'object').map(([name, value]) => <td key={name}>{typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value ?? '—')}</td>)}</tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} size={GROUP_PAGE} total={data.total} onPage={setPage} />
          </>
        )}
      </Async>
    </section>
  );
}

function GraphCard({ name, title, unit, query }: { name: string; title: string; unit: string; query: Record<string, string> }) {
  const graph = useLoad(() => get<Graph>(`/analytics/graphs/${name}`, query), [name, JSON.stringify(query)]);
  return (
    <section class="card graph" aria-label={title}>
      <h2>{title}</h2>
      <Async state={graph} what={title.toLowerCase()}>
        {(data) => (
          <>
            <p class="summary" data-testid={`summary-${name}`}>{summaryText(data.summary)}</p>
            <Chart title={title} points={data.data_points} unit={unit || undefined} />
          </>
        )}
      </Async>
    </section>
  );
}

export function AnalyticsPage(_props: PageProps) {
  const session = useSession();
  const [hours, setHours] = useState('24');
  const [apiKeys, setApiKeys] = useState('');
  const [refreshed, setRefreshed] = useState(() => Date.now());
  const to = new Date(refreshed);
  const query: Record<string, string> = {
    time_of_generation_min: new Date(refreshed - Number(hours) * 3_600_000).toISOString(),
    time_of_generation_max: to.toISOString(),
    ...(session.identity.kind === 'organisation-service' && session.workspaceId ? { workspace_slug: session.workspaceId } : {}),
    ...(apiKeys.trim() ? { api_key_ids: apiKeys.trim() } : {}),
  };
  return (
    <>
      <h1>Analytics</h1>
      <div class="row wrap filters">
        <label>Range<select value={hours} onChange={(event) => setHours((event.target as HTMLSelectElement).value)}>{RANGES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}</select></label>
        <label>API key ids (comma-separated)<input value={apiKeys} onChange={(event) => setApiKeys((event.target as HTMLInputElement).value)} /></label>
        <button type="button" onClick={() => setRefreshed(Date.now())}>Refresh</button>
      </div>
      <div class="graphs">
        {GRAPHS.map(([name, title, unit]) => <GraphCard key={name} name={name} title={title} unit={unit} query={query} />)}
      </div>
      <Groups query={query} />
    </>
  );
}
