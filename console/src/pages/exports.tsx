/** Log export jobs: create one over a time range, start, cancel, download (a signed URL from the API). */
import { useState } from 'preact/hooks';
import { api, get, type ListPage } from '../api.ts';
import { useSession, workspaceQuery } from '../session.ts';
import { Async, Empty, ErrorNote, HiddenActions, Pager, formatTime, useLoad, useSubmit } from '../ui.tsx';

interface LogExport {
  id: string;
  status: string;
  description: string | null;
  created_at: string;
  last_updated_at?: string;
}

const PAGE_SIZE = 10;

function dayAgo(): string {
  return new Date(Date.now() - 86_400_000).toISOString().slice(0, 16);
}

export function ExportsSection() {
  const session = useSession();
  const [page, setPage] = useState(0);
  const list = useLoad(() => get<ListPage<LogExport>>('/logs/exports', { ...workspaceQuery(session), current_page: page, page_size: PAGE_SIZE }), [session.workspaceId, page]);
  const canExport = session.can('logs.export');
  const [from, setFrom] = useState(dayAgo);
  const [to, setTo] = useState(() => new Date(Date.now() + 3_600_000).toISOString().slice(0, 16));
  const [description, setDescription] = useState('');
  const [actionError, setActionError] = useState<unknown>(undefined);
  const create = useSubmit(() => api('POST', '/logs/exports', {
    body: {
      ...workspaceQuery(session),
      filters: { time_of_generation_min: new Date(from).toISOString(), time_of_generation_max: new Date(to).toISOString() },
      requested_data: [],
      ...(description ? { description } : {}),
    },
  }), () => list.reload());
  const act = async (call: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await call();
      list.reload();
    } catch (error) {
      setActionError(error);
    }
  };
  const download = (id: string) => act(async () => {
    const answer = await api<{ signed_url: string }>('GET', `/logs/exports/${id}/download`);
    location.assign(answer.signed_url);
  });
  return (
    <section aria-labelledby="exports-title">
      <h2 id="exports-title">Export jobs</h2>
      <HiddenActions items={[['Create, start or cancel an export', canExport]]} />
      {canExport.ok && (
        <form class="inline-form" onSubmit={create.submit}>
          <label>From<input type="datetime-local" value={from} onInput={(event) => setFrom((event.target as HTMLInputElement).value)} /></label>
          <label>To<input type="datetime-local" value={to} onInput={(event) => setTo((event.target as HTMLInputElement).value)} /></label>
          <label>Description<input value={description} onInput={(event) => setDescription((event.target as HTMLInputElement).value)} /></label>
          <button type="submit" disabled={create.busy}>Create export</button>
          {create.error !== undefined && <ErrorNote error={create.error} />}
        </form>
      )}
      {actionError !== undefined && <ErrorNote error={actionError} />}
      <Async state={list} what="exports">
        {(data) => data.total === 0 ? <Empty>No export jobs yet.</Empty> : (
          <>
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Created</th><th scope="col">Description</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                <tbody>
                  {data.data.map((job) => (
                    <tr key={job.id}>
                      <td>{formatTime(job.created_at)}</td>
                      <td>{job.description ?? '—'}</td>
                      <td>{job.status}</td>
                      <td class="actions">
                        {canExport.ok && job.status === 'draft' && <button type="button" onClick={() => act(() => api('POST', `/logs/exports/${job.id}/start`))}>Start</button>}
                        {canExport.ok && (job.status === 'in_progress' || job.status === 'draft') && <button type="button" class="secondary" onClick={() => act(() => api('POST', `/logs/exports/${job.id}/cancel`))}>Cancel</button>}
                        {job.status === 'success' && <button type="button" class="secondary" onClick={() => download(job.id)}>Download</button>}
                        <button type="button" class="secondary" onClick={list.reload}>Refresh</button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} size={PAGE_SIZE} total={data.total} onPage={setPage} />
          </>
        )}
      </Async>
    </section>
  );
}
