/**
 * The request log: a filterable table, live (polled every few seconds while the tab is visible and the first page
 * is shown), cursor pages, a detail pane; export jobs below.
 */
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api.ts';
import type { PageProps } from '../router.ts';
import { useSession, workspaceQuery } from '../session.ts';
import { Async, Empty, formatTime, useLoad } from '../ui.tsx';
import { LogDetail } from './log-detail.tsx';
import { ExportsSection } from './exports.tsx';

export interface LogItem {
  id: string;
  created_at: string;
  workspace_id: string | null;
  trace_id: string | null;
  ai_org: string | null;
  ai_model: string | null;
  response_status_code: number;
  response_time: number | null;
  total_units: number | null;
  cost: number | null;
  cost_currency: string;
}

const FILTERS = [
  ['provider', 'Provider'],
  ['model', 'Model'],
  ['status', 'Status codes (comma-separated)'],
  ['trace_id', 'Trace id'],
  ['api_key_id', 'API key id'],
] as const;
const POLL_MS = 3000;
const LIMIT = 50;

function usePolling(enabled: boolean, tick: () => void): void {
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') tick();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [enabled, tick]);
}

export function LogsPage({ route }: PageProps) {
  const session = useSession();
  const initial = Object.fromEntries(FILTERS.map(([name]) => [name, route.query.get(name) ?? '']));
  const [draft, setDraft] = useState<Record<string, string>>(initial);
  const [filters, setFilters] = useState<Record<string, string>>(initial);
  const [cursors, setCursors] = useState<string[]>([]);
  const [live, setLive] = useState(true);
  const [selected, setSelected] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1];
  const list = useLoad(
    () => get<{ data: LogItem[]; next_cursor: string | null }>('/logs', { ...workspaceQuery(session), ...filters, limit: LIMIT, cursor }),
    [session.workspaceId, filters, cursor],
  );
  usePolling(live && cursors.length === 0 && list.error === undefined, list.reload);
  const apply = (event: Event) => {
    event.preventDefault();
    setCursors([]);
    setFilters({ ...draft });
  };
  return (
    <>
      <h1>Logs</h1>
      <form class="filters" onSubmit={apply} aria-label="Log filters">
        {FILTERS.map(([name, label]) => (
          <label key={name}>{label}<input name={name} value={draft[name]} onInput={(event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value })} /></label>
        ))}
        <button type="submit">Filter</button>
        <label class="check"><input type="checkbox" checked={live} onChange={() => setLive(!live)} />Live (every {POLL_MS / 1000} s)</label>
      </form>
      <div class="split">
        <div class="split-main">
          <Async state={list} what="logs">
            {(data) => data.data.length === 0 ? <Empty>No requests match{cursors.length === 0 && live ? ' yet; new ones appear here as they are logged' : ''}.</Empty> : (
              <>
                <div class="table-wrap">
                  <table class="logs">
                    <thead>
                      <tr>
                        <th scope="col">Time</th><th scope="col">Workspace</th><th scope="col">Provider</th><th scope="col">Model</th>
                        <th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">Trace id</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.data.map((row) => (
                        <tr key={row.id} class={row.id === selected ? 'selected' : undefined}>
                          <td><button type="button" class="link" onClick={() => setSelected(row.id)} aria-label={`Details of the request at ${formatTime(row.created_at)}`}>{formatTime(row.created_at)}</button></td>
                          <td><span class="ellipsis" title={row.workspace_id ?? ''}>{row.workspace_id?.slice(0, 8) ?? '—'}</span></td>
                          <td>{row.ai_org ?? '—'}</td>
                          <td>{row.ai_model ?? '—'}</td>
                          <td class={row.response_status_code >= 400 ? 'error-text' : undefined}>{row.response_status_code}</td>
                          <td>{row.response_time === null ? '—' : `${row.response_time} ms`}</td>
                          <td>{row.total_units ?? '—'}</td>
                          <td>{row.cost === null ? '—' : `${row.cost}¢`}</td>
                          <td><code class="ellipsis" title={row.trace_id ?? ''}>{row.trace_id ?? '—'}</code></td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <nav class="pager" aria-label="Pages">
                  <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button>
                  <button type="button" disabled={!data.next_cursor} onClick={() => data.next_cursor && setCursors([...cursors, data.next_cursor])}>Older</button>
                </nav>
              </>
            )}
          </Async>
        </div>
        {selected && <LogDetail id={selected} onClose={() => setSelected(null)} />}
      </div>
      <ExportsSection />
    </>
  );
}
