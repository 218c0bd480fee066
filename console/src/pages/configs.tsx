/** Saved configs: the list and a new config; one config's page is config-detail.tsx. */
import { useState } from 'preact/hooks';
import { api, get, type ListPage } from '../api.ts';
import { href, navigate, type PageProps } from '../router.ts';
import { useSession, workspaceQuery } from '../session.ts';
import { Async, Empty, HiddenActions, Pager, formatTime, useLoad } from '../ui.tsx';
import { ConfigDetail } from './config-detail.tsx';
import { ConfigEditor } from './config-editor.tsx';

interface ConfigSummary {
  id: string;
  name: string;
  slug: string;
  workspace_id: string | null;
  status: string;
  is_default: number;
  last_updated_at: string;
}

const EXAMPLE = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', override_params: { model: 'gpt-4o-mini' } }] }, null, 2);
const PAGE_SIZE = 25;

function NewConfig({ workspaceId }: { workspaceId: string | null }) {
  const [name, setName] = useState('');
  return (
    <section class="card" aria-labelledby="new-config">
      <h2 id="new-config">New config</h2>
      <label>Name<input required value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} /></label>
      <ConfigEditor initial={EXAMPLE} label="Config (JSON)" saveLabel="Create config" onSave={async (config) => {
        if (!name.trim()) throw new Error('Give the config a name first.');
        const created = await api<{ data: { id: string } }>('POST', '/configs', { body: { name, config, ...(workspaceId ? { workspace_id: workspaceId } : {}) } });
        navigate('configs', created.data.id);
      }} />
    </section>
  );
}

export function ConfigsPage({ route }: PageProps) {
  const session = useSession();
  const [page, setPage] = useState(0);
  const [creating, setCreating] = useState(false);
  const list = useLoad(() => get<ListPage<ConfigSummary>>('/configs', { ...workspaceQuery(session), current_page: page, page_size: PAGE_SIZE }), [session.workspaceId, page]);
  const id = route.parts[0];
  if (id) return <ConfigDetail id={id} />;
  const canCreate = session.can('configs.create', 'manager');
  return (
    <>
      <h1>Configs</h1>
      <HiddenActions items={[['Create a config', canCreate]]} />
      {canCreate.ok && (creating
        ? <NewConfig workspaceId={workspaceQuery(session).workspace_id ?? null} />
        : <button type="button" onClick={() => setCreating(true)}>New config</button>)}
      <Async state={list} what="configs">
        {(data) => data.total === 0 ? <Empty>No configs in this workspace yet.</Empty> : (
          <>
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Scope</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
                <tbody>
                  {data.data.map((config) => (
                    <tr key={config.id}>
                      <td><a href={href('configs', config.id)}>{config.name}</a>{config.is_default === 1 && <span class="badge">default</span>}</td>
                      <td><code>{config.slug}</code></td>
                      <td>{config.workspace_id ? 'workspace' : 'organisation'}</td>
                      <td>{config.status}</td>
                      <td>{formatTime(config.last_updated_at)}</td>
                    </tr>
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
