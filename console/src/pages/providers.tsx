/**
 * Integrations (provider credentials, entered once and shown masked afterwards) and the workspace's providers
 * (`@slug`): created and edited with labelled forms (JSON for the less common fields); the API's validation error
 * shows at its field.
 */
import { api, get } from '../api.ts';
import { FieldForm, fieldText, type Field } from '../form.tsx';
import type { PageProps } from '../router.ts';
import { useSession, workspaceQuery } from '../session.ts';
import { Async, formatTime, useLoad } from '../ui.tsx';
import { ResourceSection } from './resource.tsx';

interface Integration {
  id: string;
  slug: string;
  name: string;
  ai_provider_id: string;
  description?: string | null;
  masked_key?: string | null;
  key?: string | null;
  configurations?: Record<string, unknown> | null;
  status: string;
  workspace_id?: string | null;
  created_at: string;
}

interface Provider {
  id: string;
  slug: string;
  name: string;
  integration_id?: string;
  note?: string | null;
  rate_limits?: unknown;
  usage_limits?: unknown;
  expires_at?: string | null;
  status: string;
  created_at: string;
}

const INTEGRATION_COMMON: Field[] = [
  { name: 'name', label: 'Name', required: true },
  { name: 'description', label: 'Description' },
  { name: 'configurations', label: 'Configurations (JSON)', kind: 'json', hint: 'Provider settings, e.g. {"custom_host": "https://…"} or an Azure resource and deployments.' },
];

const CREATE_INTEGRATION: Field[] = [
  INTEGRATION_COMMON[0]!,
  { name: 'ai_provider_id', label: 'Provider', required: true, hint: 'The provider\'s name: openai, anthropic, azure-openai, bedrock…' },
  { name: 'key', label: 'API key', kind: 'password', hint: 'Stored sealed; shown masked afterwards.' },
  { name: 'slug', label: 'Slug' },
  ...INTEGRATION_COMMON.slice(1),
];

const EDIT_INTEGRATION: Field[] = [
  INTEGRATION_COMMON[0]!,
  { name: 'key', label: 'New API key', kind: 'password', hint: 'Leave empty to keep the stored key.' },
  ...INTEGRATION_COMMON.slice(1),
];

const PROVIDER_COMMON: Field[] = [
  { name: 'name', label: 'Name', required: true },
  { name: 'note', label: 'Note' },
  { name: 'rate_limits', label: 'Rate limits (JSON)', kind: 'json', placeholder: '[{"type": "requests", "unit": "rpm", "value": 60}]' },
  { name: 'usage_limits', label: 'Usage limits (JSON)', kind: 'json', placeholder: '{"type": "cost", "credit_limit": 10, "periodic_reset": "monthly"}' },
  { name: 'expires_at', label: 'Expires at (ISO-8601)', placeholder: '2030-01-01T00:00:00Z' },
];

const CREATE_PROVIDER: Field[] = [
  PROVIDER_COMMON[0]!,
  { name: 'integration_id', label: 'Integration (slug or id)', required: true },
  { name: 'slug', label: 'Slug', hint: 'Requests use the provider as @slug.' },
  ...PROVIDER_COMMON.slice(1),
];

function initialOf(fields: readonly Field[], row: object): Record<string, string> {
  const values = row as Record<string, unknown>;
  return Object.fromEntries(fields.map((field) => [field.name, field.kind === 'password' ? '' : fieldText(field, values[field.name])]));
}

/** The edit form of an integration, from its details (the list shows neither its key nor its configurations). */
function EditIntegration({ slug, done }: { slug: string; done(): void }) {
  const details = useLoad(() => get<Integration>(`/integrations/${encodeURIComponent(slug)}`), [slug]);
  return (
    <Async state={details} what="the integration">
      {(row) => {
        const fields = EDIT_INTEGRATION.map((field) => (field.name === 'key' && row.masked_key ? { ...field, hint: `Stored: ${row.masked_key}. Leave empty to keep it.` } : field));
        return (
          <FieldForm id={`edit-integration-${row.slug}`} fields={fields} initial={initialOf(fields, row)} submitLabel="Save integration" onDone={done}
            onSubmit={(body) => api('PUT', `/integrations/${encodeURIComponent(row.slug)}`, { body })} />
        );
      }}
    </Async>
  );
}

export function ProvidersPage(_props: PageProps) {
  const session = useSession();
  const query = workspaceQuery(session);
  const isAdmin = session.identity.kind === 'organisation-service';
  const ownWorkspace = isAdmin ? undefined : session.identity.workspaceId ?? undefined;
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
          { label: 'Scope', cell: (row) => (row.workspace_id ? 'workspace' : 'organisation') },
          { label: 'Created', cell: (row) => formatTime(row.created_at) },
        ]}
        create={{
          permission: session.can('integrations.create', isAdmin ? 'admin' : 'manager'),
          label: 'New integration',
          form: (done) => (
            <FieldForm id="new-integration" fields={CREATE_INTEGRATION} initial={{ ai_provider_id: 'openai' }} submitLabel="Create integration" onDone={done}
              onSubmit={(body) => api('POST', '/integrations', { body: { ...body, ...(ownWorkspace ? { workspace_id: ownWorkspace } : {}) } })} />
          ),
        }}
        edit={{
          permission: session.can('integrations.update', isAdmin ? 'admin' : 'manager'),
          form: (row, done) => <EditIntegration slug={row.slug} done={done} />,
        }}
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
        create={{
          permission: session.can('providers.create', 'manager'),
          label: 'New provider',
          form: (done) => (
            <FieldForm id="new-provider" fields={CREATE_PROVIDER} submitLabel="Create provider" onDone={done}
              onSubmit={(body) => api('POST', '/providers', { body: { ...body, ...query } })} />
          ),
        }}
        edit={{
          permission: session.can('providers.update', 'manager'),
          form: (row, done) => (
            <FieldForm id={`edit-provider-${row.slug}`} fields={PROVIDER_COMMON} initial={initialOf(PROVIDER_COMMON, row)} submitLabel="Save provider" onDone={done}
              onSubmit={(body) => api('PUT', `/providers/${encodeURIComponent(row.slug)}`, { body, query })} />
          ),
        }}
        remove={{ permission: session.can('providers.delete', 'manager'), label: 'Delete' }}
      />
    </>
  );
}
