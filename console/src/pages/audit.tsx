/** The audit log: every admin change (and every denied attempt), filterable, in pages. */
import { useState } from 'preact/hooks';
import { get, type ListPage } from '../api.ts';
import type { PageProps } from '../router.ts';
import { Async, Empty, Json, Pager, formatTime, useLoad } from '../ui.tsx';

interface AuditRecord {
  id: string;
  timestamp: string;
  method: string;
  uri: string;
  action: string;
  resource_type: string;
  resource_id: string | null;
  outcome: string;
  response_status_code: number;
  user_id: string | null;
  api_key_id: string | null;
  workspace_id: string | null;
  request_body: string | null;
  client_ip: string;
}

const FILTERS = [['action', 'Action (e.g. api_keys.create)'], ['resource_type', 'Resource type'], ['api_key_id', 'API key id'], ['workspace_id', 'Workspace id']] as const;
const PAGE_SIZE = 25;

export function AuditPage(_props: PageProps) {
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [page, setPage] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const list = useLoad(() => get<ListPage<AuditRecord>>('/audit-logs', { ...filters, current_page: page, page_size: PAGE_SIZE }), [filters, page]);
  return (
    <>
      <h1>Audit log</h1>
      <form class="filters" aria-label="Audit log filters" onSubmit={(event) => { event.preventDefault(); setPage(0); setFilters({ ...draft }); }}>
        {FILTERS.map(([name, label]) => (
          <label key={name}>{label}<input value={draft[name] ?? ''} onInput={(event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value })} /></label>
        ))}
        <button type="submit">Filter</button>
      </form>
      <Async state={list} what="the audit log">
        {(data) => data.total === 0 ? <Empty>No audit records match.</Empty> : (
          <>
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Time</th><th scope="col">Action</th><th scope="col">Request</th><th scope="col">Outcome</th><th scope="col">By key</th><th scope="col"><span class="sr-only">Details</span></th></tr></thead>
                <tbody>
                  {data.data.map((record) => (
                    <>
                      <tr key={record.id}>
                        <td>{formatTime(record.timestamp)}</td>
                        <td><code>{record.action}</code></td>
                        <td>{record.method} <code class="ellipsis" title={record.uri}>{record.uri}</code></td>
                        <td class={record.outcome === 'success' ? undefined : 'error-text'}>{record.outcome} ({record.response_status_code})</td>
                        <td><code class="ellipsis" title={record.api_key_id ?? ''}>{record.api_key_id?.slice(0, 8) ?? '—'}</code></td>
                        <td><button type="button" class="secondary" aria-expanded={open === record.id} onClick={() => setOpen(open === record.id ? null : record.id)}>Details</button></td>
                      </tr>
                      {open === record.id && <tr key={`${record.id}-body`}><td colSpan={6}><Json value={record} label="Audit record" /></td></tr>}
                    </>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} size={PAGE_SIZE} total={data.total} onPage={setPage} />
          </>
        )}
      </Async>
    </>
  );
}
