/** The organisation's users (role, removal) and invites (create, resend, cancel): admin keys only. */
import { useState } from 'preact/hooks';
import { api, get, type ListPage } from '../api.ts';
import type { PageProps } from '../router.ts';
import { useSession } from '../session.ts';
import { Async, Empty, ErrorNote, HiddenActions, Pager, SecretOnce, formatTime, useLoad, useSubmit } from '../ui.tsx';

interface User {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: string;
  created_at: string;
}

interface Invite {
  id: string;
  email: string;
  role: string;
  status: string;
  created_at: string;
  expires_at?: string;
}

const PAGE_SIZE = 20;

function NewInvite({ workspaceId, onInvited }: { workspaceId: string | null; onInvited(link: string): void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [workspaceRole, setWorkspaceRole] = useState('member');
  const { busy, error, submit } = useSubmit(() => api<{ invite_link: string }>('POST', '/admin/users/invites', {
    body: { email, role, workspaces: workspaceId ? [{ id: workspaceId, role: workspaceRole }] : [] },
  }), (invite) => {
    setEmail('');
    onInvited(invite.invite_link);
  });
  return (
    <form class="inline-form" onSubmit={submit} aria-label="Invite a user">
      <label>Email<input type="email" required value={email} onInput={(event) => setEmail((event.target as HTMLInputElement).value)} /></label>
      <label>Organisation role<select value={role} onChange={(event) => setRole((event.target as HTMLSelectElement).value)}><option>member</option><option>admin</option></select></label>
      <label>Role in the selected workspace<select value={workspaceRole} onChange={(event) => setWorkspaceRole((event.target as HTMLSelectElement).value)}><option>member</option><option>manager</option><option>admin</option></select></label>
      <button type="submit" disabled={busy}>Invite</button>
      {error !== undefined && <ErrorNote error={error} />}
    </form>
  );
}

export function UsersPage(_props: PageProps) {
  const session = useSession();
  const [userPage, setUserPage] = useState(0);
  const [invitePage, setInvitePage] = useState(0);
  const users = useLoad(() => get<ListPage<User>>('/admin/users', { current_page: userPage, page_size: PAGE_SIZE }), [userPage]);
  const invites = useLoad(() => get<ListPage<Invite>>('/admin/users/invites', { current_page: invitePage, page_size: PAGE_SIZE }), [invitePage]);
  const canUpdate = session.can('organisation_users.update', 'admin');
  const canRemove = session.can('organisation_users.delete', 'admin');
  const canInvite = session.can('user_invites.create', 'admin');
  const canCancel = session.can('user_invites.delete', 'admin');
  const [link, setLink] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const act = async (call: () => Promise<unknown>, reload: () => void) => {
    setActionError(undefined);
    try {
      await call();
      reload();
    } catch (error) {
      setActionError(error);
    }
  };
  return (
    <>
      <h1>Users and invites</h1>
      <HiddenActions items={[['Change a user\'s role', canUpdate], ['Remove a user', canRemove], ['Invite a user', canInvite], ['Cancel an invite', canCancel]]} />
      {actionError !== undefined && <ErrorNote error={actionError} />}
      <section aria-labelledby="users-title">
        <h2 id="users-title">Users</h2>
        <Async state={users} what="users">
          {(data) => data.total === 0 ? <Empty>No users.</Empty> : (
            <>
              <div class="table-wrap">
                <table>
                  <thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Id</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                  <tbody>
                    {data.data.map((user) => (
                      <tr key={user.id}>
                        <td>{user.email}</td>
                        <td>{[user.first_name, user.last_name].filter(Boolean).join(' ') || '—'}</td>
                        <td>
                          {canUpdate.ok && user.role !== 'owner' ? (
                            <select aria-label={`Role of ${user.email}`} value={user.role} onChange={(event) => act(() => api('PUT', `/admin/users/${user.id}`, { body: { role: (event.target as HTMLSelectElement).value } }), users.reload)}>
                              <option>member</option><option>admin</option>
                            </select>
                          ) : user.role}
                        </td>
                        <td><code class="ellipsis" title={user.id}>{user.id}</code></td>
                        <td>{formatTime(user.created_at)}</td>
                        <td class="actions">{canRemove.ok && user.role !== 'owner' && <button type="button" class="danger" onClick={() => confirm(`Remove ${user.email}?`) && act(() => api('DELETE', `/admin/users/${user.id}`), users.reload)}>Remove</button>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={userPage} size={PAGE_SIZE} total={data.total} onPage={setUserPage} />
            </>
          )}
        </Async>
      </section>
      <section aria-labelledby="invites-title">
        <h2 id="invites-title">Invites</h2>
        {link && <SecretOnce label="The invite link (send it to the person)" value={link} onDone={() => setLink(null)} />}
        {canInvite.ok && <NewInvite workspaceId={session.workspaceId} onInvited={(value) => { setLink(value); invites.reload(); }} />}
        <Async state={invites} what="invites">
          {(data) => data.total === 0 ? <Empty>No invites.</Empty> : (
            <>
              <div class="table-wrap">
                <table>
                  <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Sent</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                  <tbody>
                    {data.data.map((invite) => (
                      <tr key={invite.id}>
                        <td>{invite.email}</td>
                        <td>{invite.role}</td>
                        <td>{invite.status}</td>
                        <td>{formatTime(invite.created_at)}</td>
                        <td class="actions">
                          {canInvite.ok && invite.status === 'pending' && <button type="button" class="secondary" onClick={() => act(async () => setLink((await api<{ invite_link: string }>('POST', `/admin/users/invites/${invite.id}/resend`)).invite_link), invites.reload)}>Resend</button>}
                          {canCancel.ok && invite.status === 'pending' && <button type="button" class="danger" onClick={() => act(() => api('DELETE', `/admin/users/invites/${invite.id}`), invites.reload)}>Cancel</button>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={invitePage} size={PAGE_SIZE} total={data.total} onPage={setInvitePage} />
            </>
          )}
        </Async>
      </section>
    </>
  );
}
