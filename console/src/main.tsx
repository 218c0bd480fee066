/** The console's shell: sign-in, the navigation, the workspace picker and the page the hash names. */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { forgetKey, get, storedKey, storeKey, type ListPage } from './api.ts';
import { AnalyticsPage } from './pages/analytics.tsx';
import { AuditPage } from './pages/audit.tsx';
import { ConfigsPage } from './pages/configs.tsx';
import { KeysPage } from './pages/keys.tsx';
import { LogsPage } from './pages/logs.tsx';
import { PoliciesPage } from './pages/policies.tsx';
import { ProvidersPage } from './pages/providers.tsx';
import { SignIn } from './pages/signin.tsx';
import { UsersPage } from './pages/users.tsx';
import { WorkspacesPage } from './pages/workspaces.tsx';
import { href, useRoute } from './router.ts';
import { identify, permission, SessionContext, type Identity, type Session } from './session.ts';
import { Loading } from './ui.tsx';
import './styles.css';

const PAGES = [
  ['workspaces', 'Workspaces', WorkspacesPage],
  ['users', 'Users & invites', UsersPage],
  ['keys', 'API keys', KeysPage],
  ['configs', 'Configs', ConfigsPage],
  ['providers', 'Providers', ProvidersPage],
  ['policies', 'Limits', PoliciesPage],
  ['logs', 'Logs', LogsPage],
  ['analytics', 'Analytics', AnalyticsPage],
  ['audit', 'Audit log', AuditPage],
] as const;

interface Workspace {
  id: string;
  slug: string;
  name: string;
  defaults?: { is_default?: number };
}

function WorkspacePicker({ session, version }: { session: Session; version: number }) {
  const [workspaces, setWorkspaces] = useState<Workspace[] | null>(null);
  const isAdmin = session.identity.kind === 'organisation-service';
  useEffect(() => {
    if (!isAdmin) return;
    get<ListPage<Workspace>>('/admin/workspaces', { page_size: 100 }).then((list) => {
      setWorkspaces(list.data);
      if (!session.workspaceId || !list.data.some((workspace) => workspace.id === session.workspaceId)) {
        const fallback = list.data.find((workspace) => workspace.defaults?.is_default === 1) ?? list.data[0];
        if (fallback) session.setWorkspaceId(fallback.id);
      }
    }, () => setWorkspaces([]));
  }, [isAdmin, version]);
  if (!isAdmin) {
    return <p class="muted workspace-note">{session.identity.workspaceId ? 'Your key\'s workspace' : 'The workspace of your key'}</p>;
  }
  if (!workspaces) return <Loading what="workspaces" />;
  return (
    <label class="workspace-picker">
      Workspace
      <select value={session.workspaceId ?? ''} onChange={(event) => session.setWorkspaceId((event.target as HTMLSelectElement).value)}>
        {workspaces.map((workspace) => <option key={workspace.id} value={workspace.id}>{workspace.name} ({workspace.slug})</option>)}
      </select>
    </label>
  );
}

function Shell({ identity, onSignOut }: { identity: Identity; onSignOut(): void }) {
  const route = useRoute();
  const [workspaceId, setWorkspaceId] = useState<string | null>(identity.kind === 'organisation-service' ? sessionStorage.getItem('gateway-console-workspace') : identity.workspaceId);
  // a workspace created on the workspaces page shows up in the picker at once
  const [workspacesVersion, setWorkspacesVersion] = useState(0);
  const session = useMemo<Session>(() => ({
    identity,
    workspaceId,
    setWorkspaceId: (id: string) => {
      sessionStorage.setItem('gateway-console-workspace', id);
      setWorkspaceId(id);
    },
    signOut: onSignOut,
    can: (scope, needs) => permission(identity, scope, needs),
  }), [identity, workspaceId]);
  const [menuOpen, setMenuOpen] = useState(false);
  const current = PAGES.find(([name]) => name === route.page) ?? PAGES[0];
  const Page = current[2];
  useEffect(() => {
    document.title = `${current[1]} · Gateway console`;
    setMenuOpen(false);
  }, [current[0]]);
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main" onClick={(event) => { event.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="top">
        <button type="button" class="menu-toggle secondary" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        <strong class="brand">Gateway console</strong>
        <WorkspacePicker session={session} version={workspacesVersion} />
        <span class="who" title={identity.known ? [...identity.scopes].join(', ') : identity.unknownWhy}>
          {identity.known ? `${identity.name} (${identity.kind}${identity.role ? `, ${identity.role}` : ''})` : 'Key of unknown scopes'}
        </span>
        <button type="button" class="secondary" onClick={onSignOut}>Sign out</button>
      </header>
      <div class="layout">
        <nav id="nav" class={menuOpen ? 'side open' : 'side'} aria-label="Sections">
          <ul>
            {PAGES.map(([name, label]) => (
              <li key={name}><a href={href(name)} aria-current={name === current[0] ? 'page' : undefined}>{label}</a></li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {!identity.known && (
            <p class="notice" role="note">Changes are hidden: {identity.unknownWhy}. Sections still show what the key may read.</p>
          )}
          <Page route={route} onWorkspacesChanged={() => setWorkspacesVersion((version) => version + 1)} />
        </main>
      </div>
    </SessionContext.Provider>
  );
}

function App() {
  const [identity, setIdentity] = useState<Identity | null>(null);
  const [restoring, setRestoring] = useState(() => storedKey() !== null);
  useEffect(() => {
    const key = storedKey();
    if (!key) return;
    identify(key).then(setIdentity, () => forgetKey()).finally(() => setRestoring(false));
  }, []);
  if (restoring) return <main class="center"><Loading what="your session" /></main>;
  if (!identity) {
    return (
      <SignIn onSignedIn={(key, found) => {
        storeKey(key);
        setIdentity(found);
      }} />
    );
  }
  return <Shell identity={identity} onSignOut={() => {
    forgetKey();
    sessionStorage.removeItem('gateway-console-workspace');
    setIdentity(null);
  }} />;
}

render(<App />, document.getElementById('app')!);
