/** The members of one workspace: who belongs, with which role; add, change the role, remove. */
import { useState } from 'preact/hooks';
import { api, get, type ListPage } from '../api.ts';
import { useSession } from '../session.ts';
import { Async, Empty, ErrorNote, HiddenActions, Pager, useLoad, useSubmit } from '../ui.tsx';

interface Member {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: string;
  org_role: string | null;
}

const ROLES = ['member', 'manager', 'admin'];
const PAGE_SIZE = 20;

export function MembersSection({ workspaceId }: { workspaceId: string }) {
  const session = useSession();
  const [page, setPage] = useState(0);
  const list = useLoad(() => get<ListPage<Member>>(`/admin/workspaces/${workspaceId}/users`, { current_page: page, page_size: PAGE_SIZE }), [workspaceId, page]);
  const canAdd = session.can('workspace_users.create', 'members');
  const canUpdate = session.can('workspace_users.update', 'members');
  const canRemove = session.can('workspace_users.delete', 'members');
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState('member');
  const [actionError, setActionError] = useState<unknown>(undefined);
  const add = useSubmit(() => api('POST', `/admin/workspaces/${workspaceId}/users`, { body: { users: [{ id: userId.trim(), role }] } }), () => {
    setUserId('');
    list.reload();
  });
  const act = async (call: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await call();
      list.reload();
    } catch (error) {
      setActionError(error);
    }
  };
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members of the selected workspace</h2>
      <HiddenActions items={[['Add a member', canAdd], ['Change a role', canUpdate], ['Remove a member', canRemove]]} />
      {canAdd.ok && (
        <form class="inline-form" onSubmit={add.submit}>
          <label>User id<input required value={userId} onInput={(event) => setUserId((event.target as HTMLInputElement).value)} placeholder="the user's UUID (see Users)" /></label>
          <label>Role<select value={role} onChange={(event) => setRole((event.target as HTMLSelectElement).value)}>{ROLES.map((name) => <option key={name}>{name}</option>)}</select></label>
          <button type="submit" disabled={add.busy}>Add member</button>
          {add.error !== undefined && <ErrorNote error={add.error} />}
        </form>
      )}
      {actionError !== undefined && <ErrorNote error={actionError} />}
      <Async state={list} what="members">
        {(data) => data.total === 0 ? <Empty>No members: organisation owners and admins reach every workspace without being members.</Empty> : (
          <>
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Organisation role</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                <tbody>
                  {data.data.map((member) => (
                    <tr key={member.id}>
                      <td>{member.email}</td>
                      <td>{[member.first_name, member.last_name].filter(Boolean).join(' ') || '—'}</td>
                      <td>
                        {canUpdate.ok ? (
                          <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(event) => act(() => api('PUT', `/admin/workspaces/${workspaceId}/users/${member.id}`, { body: { role: (event.target as HTMLSelectElement).value } }))}>
                            {ROLES.map((name) => <option key={name}>{name}</option>)}
                          </select>
                        ) : member.role}
                      </td>
                      <td>{member.org_role ?? '—'}</td>
                      <td class="actions">{canRemove.ok && <button type="button" class="danger" onClick={() => act(() => api('DELETE', `/admin/workspaces/${workspaceId}/users/${member.id}`))}>Remove</button>}</td>
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
