/** API keys: the list, a new key with its scopes (the secret shown once), rotate (a new secret, shown once) and revoke. */
import { useState } from 'preact/hooks';
import { ALL_SCOPES } from '../../../src/auth/scopes.ts';
import { api, get, type ListPage } from '../api.ts';
import type { PageProps } from '../router.ts';
import { useSession, workspaceQuery, type Permission, type Session } from '../session.ts';
import { Async, Empty, ErrorNote, HiddenActions, Pager, SecretOnce, formatTime, useLoad, useSubmit } from '../ui.tsx';

interface ApiKey {
  id: string;
  key: string;
  name: string;
  type: string;
  workspace_id: string | null;
  user_id: string | null;
  status: string;
  scopes: string[];
  last_used_at: string | null;
  created_at: string;
}

const KINDS = [
  { kind: 'workspace-service', label: 'Workspace service key', resource: 'workspace_service_api_keys', needs: 'manager' },
  { kind: 'workspace-user', label: 'Workspace user key', resource: 'workspace_user_api_keys', needs: 'manager' },
  { kind: 'organisation-service', label: 'Admin key', resource: 'organisation_service_api_keys', needs: 'admin' },
] as const;

const PAGE_SIZE = 20;

function resourceOf(type: string): string {
  return KINDS.find((kind) => kind.kind === type)?.resource ?? 'organisation_service_api_keys';
}

function needsOf(type: string): 'admin' | 'manager' {
  return type === 'organisation-service' ? 'admin' : 'manager';
}

function CreateKey({ session, kinds, onCreated }: { session: Session; kinds: Array<(typeof KINDS)[number]>; onCreated(secret: string): void }) {
  const [kind, setKind] = useState<string>(kinds[0]!.kind);
  const [name, setName] = useState('');
  const [userId, setUserId] = useState('');
  // a key can only hand out scopes it holds itself
  const grantable = ALL_SCOPES.filter((scope) => session.identity.scopes.has(scope));
  const [scopes, setScopes] = useState<Set<string>>(() => new Set(['completions.write']));
  const toggle = (scope: string) => {
    const next = new Set(scopes);
    if (next.has(scope)) next.delete(scope);
    else next.add(scope);
    setScopes(next);
  };
  const { busy, error, submit } = useSubmit(async () => {
    const [type, subType] = kind.split('-') as [string, string];
    const body = {
      name,
      scopes: [...scopes],
      ...(type === 'workspace' ? { workspace_id: session.workspaceId ?? session.identity.workspaceId } : {}),
      ...(kind === 'workspace-user' && userId ? { user_id: userId.trim() } : {}),
    };
    return api<{ key: string }>('POST', `/api-keys/${type}/${subType}`, { body });
  }, (created) => {
    setName('');
    onCreated(created.key);
  });
  return (
    <form class="card form" onSubmit={submit} aria-labelledby="new-key">
      <h2 id="new-key">New API key</h2>
      <label>Kind<select value={kind} onChange={(event) => setKind((event.target as HTMLSelectElement).value)}>{kinds.map((entry) => <option key={entry.kind} value={entry.kind}>{entry.label}</option>)}</select></label>
      <label>Name<input required value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} /></label>
      {kind === 'workspace-user' && <label>User id (empty: your own user)<input value={userId} onInput={(event) => setUserId((event.target as HTMLInputElement).value)} /></label>}
      {kind !== 'organisation-service' && <p class="muted">In the selected workspace.</p>}
      <fieldset class="scopes">
        <legend>Scopes ({scopes.size} chosen)</legend>
        <div class="row">
          <button type="button" class="secondary" onClick={() => setScopes(new Set(grantable))}>All I hold</button>
          <button type="button" class="secondary" onClick={() => setScopes(new Set())}>None</button>
        </div>
        <div class="scope-grid">
          {grantable.map((scope) => (
            <label key={scope} class="check"><input type="checkbox" checked={scopes.has(scope)} onChange={() => toggle(scope)} />{scope}</label>
          ))}
        </div>
      </fieldset>
      {error !== undefined && <ErrorNote error={error} />}
      <button type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create key'}</button>
    </form>
  );
}

export function KeysPage(_props: PageProps) {
  const session = useSession();
  const isAdmin = session.identity.kind === 'organisation-service';
  const [everything, setEverything] = useState(false);
  const [page, setPage] = useState(0);
  const list = useLoad(
    () => get<ListPage<ApiKey>>('/api-keys', { ...(everything ? {} : workspaceQuery(session)), current_page: page, page_size: PAGE_SIZE }),
    [session.workspaceId, everything, page],
  );
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const createPermissions: Array<[string, Permission]> = KINDS.map((kind) => [`Create a ${kind.label.toLowerCase()}`, session.can(`${kind.resource}.create`, kind.needs)]);
  const creatable = KINDS.filter((_kind, index) => createPermissions[index]![1].ok);
  const rowPermission = (row: ApiKey, action: 'update' | 'delete') => session.can(`${resourceOf(row.type)}.${action}`, needsOf(row.type));
  const act = async (call: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await call();
      list.reload();
    } catch (error) {
      setActionError(error);
    }
  };
  const rotate = (row: ApiKey) => act(async () => {
    const rotated = await api<{ key: string; key_transition_expires_at: string }>('POST', `/api-keys/${row.id}/rotate`, { body: {} });
    setSecret({ label: `New secret of "${row.name}" (the old one works until ${formatTime(rotated.key_transition_expires_at)})`, value: rotated.key });
  });
  const revoke = (row: ApiKey) => {
    if (!confirm(`Revoke the key "${row.name}"? Requests with it are refused at once.`)) return;
    void act(() => api('DELETE', `/api-keys/${row.id}`));
  };
  return (
    <>
      <h1>API keys</h1>
      <HiddenActions items={[
        ...createPermissions,
        ['Rotate or revoke a key of this workspace', session.can('workspace_service_api_keys.update', 'manager')],
      ]} />
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      {creatable.length > 0 && !secret && (
        <CreateKey session={session} kinds={creatable} onCreated={(value) => {
          setSecret({ label: 'The new key', value });
          list.reload();
        }} />
      )}
      {isAdmin && (
        <label class="check"><input type="checkbox" checked={everything} onChange={() => setEverything(!everything)} />Show every workspace's keys and the admin keys</label>
      )}
      {actionError !== undefined && <ErrorNote error={actionError} />}
      <Async state={list} what="API keys">
        {(data) => data.total === 0 ? <Empty>No API keys here yet.</Empty> : (
          <>
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                <tbody>
                  {data.data.map((row) => (
                    <tr key={row.id}>
                      <td>{row.name}{row.id === session.identity.id && <span class="badge">you</span>}</td>
                      <td><code>{row.key}</code></td>
                      <td>{row.type}</td>
                      <td>{row.status}</td>
                      <td><details><summary>{row.scopes.length} scopes</summary><p class="scope-list">{row.scopes.join(', ')}</p></details></td>
                      <td>{formatTime(row.last_used_at)}</td>
                      <td class="actions">
                        {rowPermission(row, 'update').ok && <button type="button" class="secondary" onClick={() => rotate(row)}>Rotate</button>}
                        {rowPermission(row, 'delete').ok && row.id !== session.identity.id && <button type="button" class="danger" onClick={() => revoke(row)}>Revoke {row.name}</button>}
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
    </>
  );
}
