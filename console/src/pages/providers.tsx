/** Integrations (provider credentials, entered once and shown masked afterwards) and the workspace's providers (`@slug`). */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { PageProps } from '../router.ts';
import { useSession, workspaceQuery } from '../session.ts';
import { ErrorNote, formatTime, useSubmit } from '../ui.tsx';
import { ResourceSection } from './resource.tsx';

interface Integration {
  id: string;
  slug: string;
  name: string;
  ai_provider_id: string;
  masked_key?: string | null;
  key?: string | null;
  status: string;
  workspace_id?: string | null;
  created_at: string;
}

interface Provider {
  id: string;
  slug: string;
  name: string;
  integration_id?: string;
  status: string;
  created_at: string;
}

function NewIntegration({ workspaceId, done }: { workspaceId: string | undefined; done(): void }) {
  const [name, setName] = useState('');
  const [provider, setProvider] = useState('openai');
  const [key, setKey] = useState('');
  const { busy, error, submit } = useSubmit(() => api('POST', '/integrations', {
    body: { name, ai_provider_id: provider, ...(key ? { key } : {}), ...(workspaceId ? { workspace_id: workspaceId } : {}) },
  }), () => {
    setKey('');
    done();
  });
  return (
    <form class="form" onSubmit={submit}>
      <label>Name<input required value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} /></label>
      <label>Provider (e.g. openai, anthropic)<input required value={provider} onInput={(event) => setProvider((event.target as HTMLInputElement).value)} /></label>
      <label>API key (stored sealed; shown masked afterwards)<input type="password" autocomplete="off" value={key} onInput={(event) => setKey((event.target as HTMLInputElement).value)} /></label>
      {error !== undefined && <ErrorNote error={error} />}
      <button type="submit" disabled={busy}>Create integration</button>
    </form>
  );
}

function NewProvider({ query, done }: { query: Record<string, string>; done(): void }) {
  const [name, setName] = useState('');
  const [integration, setIntegration] = useState('');
  const { busy, error, submit } = useSubmit(() => api('POST', '/providers', { body: { name, integration_id: integration, ...query } }), done);
  return (
    <form class="form" onSubmit={submit}>
      <label>Name<input required value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} /></label>
      <label>Integration (slug or id)<input required value={integration} onInput={(event) => setIntegration((event.target as HTMLInputElement).value)} /></label>
      {error !== undefined && <ErrorNote error={error} />}
      <button type="submit" disabled={busy}>Create provider</button>
    </form>
  );
}

export function ProvidersPage(_props: PageProps) {
  const session = useSession();
  const query = workspaceQuery(session);
  const isAdmin = session.identity.kind === 'organisation-service';
  return (
    <>
      <h1>Providers and integrations</h1>
      <ResourceSection<Integration>
        title="Integrations"
        path="/integrations"
        query={{}}
        idOf={(row) => row.slug}
        nameOf={(row) => row.name}
        empty="No integrations yet: an integration holds a provider's credentials."
        columns={[
          { label: 'Name', cell: (row) => row.name },
          { label: 'Slug', cell: (row) => <code>{row.slug}</code> },
          { label: 'Provider', cell: (row) => row.ai_provider_id },
          { label: 'Key', cell: (row) => <code>{row.masked_key ?? row.key ?? '—'}</code> },
          { label: 'Scope', cell: (row) => (row.workspace_id ? 'workspace' : 'organisation') },
          { label: 'Created', cell: (row) => formatTime(row.created_at) },
        ]}
        create={{ permission: session.can('integrations.create', isAdmin ? 'admin' : 'manager'), label: 'New integration', form: (done) => <NewIntegration workspaceId={isAdmin ? undefined : session.identity.workspaceId ?? undefined} done={done} /> }}
        remove={{ permission: session.can('integrations.delete', isAdmin ? 'admin' : 'manager'), label: 'Delete' }}
      />
      <ResourceSection<Provider>
        title="Providers of this workspace"
        path="/providers"
        query={query}
        idOf={(row) => row.slug}
        nameOf={(row) => row.name}
        empty="No providers in this workspace: a provider is used in requests as @slug."
        columns={[
          { label: 'Name', cell: (row) => row.name },
          { label: 'Use as', cell: (row) => <code>@{row.slug}</code> },
          { label: 'Status', cell: (row) => row.status },
          { label: 'Created', cell: (row) => formatTime(row.created_at) },
        ]}
        create={{ permission: session.can('providers.create', 'manager'), label: 'New provider', form: (done) => <NewProvider query={query} done={done} /> }}
        remove={{ permission: session.can('providers.delete', 'manager'), label: 'Delete' }}
      />
    </>
  );
}
