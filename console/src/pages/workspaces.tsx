/** Workspaces (admin keys create, rename and delete them) and the picked workspace's members. */
import { useState } from 'preact/hooks';
import { api, get, type ListPage } from '../api.ts';
import type { PageProps } from '../router.ts';
import { useSession } from '../session.ts';
import { Async, Empty, ErrorNote, HiddenActions, Pager, formatTime, useLoad, useSubmit } from '../ui.tsx';
import { MembersSection } from './members.tsx';

interface Workspace {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  created_at: string;
  defaults?: { is_default?: number };
}

const PAGE_SIZE = 20;

function CreateWorkspace({ onCreated }: { onCreated(workspace: Workspace): void }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, submit } = useSubmit(
    () => api<Workspace>('POST', '/admin/workspaces', { body: { name, ...(slug ? { slug } : {}), ...(description ? { description } : {}) } }),
    (workspace) => {
      setName('');
      setSlug('');
      setDescription('');
      onCreated(workspace);
    },
  );
  return (
    <form class="card form" onSubmit={submit} aria-labelledby="new-workspace">
      <h2 id="new-workspace">New workspace</h2>
      <label>Name<input required value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} /></label>
      <label>Slug (optional)<input value={slug} pattern="[a-zA-Z0-9_\-]+" onInput={(event) => setSlug((event.target as HTMLInputElement).value)} /></label>
      <label>Description (optional)<input value={description} onInput={(event) => setDescription((event.target as HTMLInputElement).value)} /></label>
      {error !== undefined && <ErrorNote error={error} />}
      <button type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create workspace'}</button>
    </form>
  );
}

export function WorkspacesPage({ onWorkspacesChanged }: PageProps) {
  const session = useSession();
  const [page, setPage] = useState(0);
  const list = useLoad(() => get<ListPage<Workspace>>('/admin/workspaces', { current_page: page, page_size: PAGE_SIZE }), [page]);
  const canCreate = session.can('workspaces.create', 'admin');
  const canDelete = session.can('workspaces.delete', 'admin');
  const [deleteError, setDeleteError] = useState<unknown>(undefined);
  const remove = async (workspace: Workspace) => {
    if (!confirm(`Delete the workspace "${workspace.name}"?`)) return;
    try {
      await api('DELETE', `/admin/workspaces/${workspace.id}`);
      list.reload();
      onWorkspacesChanged();
    } catch (error) {
      setDeleteError(error);
    }
  };
  return (
    <>
      <h1>Workspaces</h1>
      <HiddenActions items={[['Create a workspace', canCreate], ['Delete a workspace', canDelete]]} />
      {canCreate.ok && <CreateWorkspace onCreated={(workspace) => {
        list.reload();
        onWorkspacesChanged();
        session.setWorkspaceId(workspace.id);
      }} />}
      {deleteError !== undefined && <ErrorNote error={deleteError} />}
      <Async state={list} what="workspaces">
        {(data) => data.total === 0 ? <Empty>No workspaces yet.</Empty> : (
          <>
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Workspaces</caption>
                <thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                <tbody>
                  {data.data.map((workspace) => (
                    <tr key={workspace.id} aria-current={workspace.id === session.workspaceId ? 'true' : undefined}>
                      <td>{workspace.name}{workspace.defaults?.is_default === 1 && <span class="badge">default</span>}</td>
                      <td><code>{workspace.slug}</code></td>
                      <td>{formatTime(workspace.created_at)}</td>
                      <td class="actions">
                        <button type="button" class="secondary" onClick={() => session.setWorkspaceId(workspace.id)} disabled={workspace.id === session.workspaceId}>
                          {workspace.id === session.workspaceId ? 'Selected' : 'Select'}
                        </button>
                        {canDelete.ok && workspace.defaults?.is_default !== 1 && <button type="button" class="danger" onClick={() => remove(workspace)}>Delete</button>}
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
      {(session.workspaceId ?? session.identity.workspaceId) && <MembersSection workspaceId={(session.workspaceId ?? session.identity.workspaceId)!} />}
    </>
  );
}
