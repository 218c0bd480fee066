/** One config: its JSON (edited and saved as a new version), its versions with a diff, and "try it". */
import { useState } from 'preact/hooks';
import { api, get, type ListPage } from '../api.ts';
import { diffLines } from '../diff.ts';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.ts';
import { Async, ErrorNote, HiddenActions, formatTime, useLoad } from '../ui.tsx';
import { ConfigEditor } from './config-editor.tsx';
import { TryIt } from './try-it.tsx';

interface ConfigDetails {
  id: string;
  name: string;
  slug: string;
  status: string;
  workspace_id: string | null;
  version_id: string;
  config: unknown;
  last_updated_at: string;
}

interface Version {
  version_id: string;
  config: string;
  last_updated_at: string;
  created_at: string;
}

function pretty(config: string | unknown): string {
  try {
    return JSON.stringify(typeof config === 'string' ? JSON.parse(config) : config, null, 2);
  } catch {
    return String(config);
  }
}

function Versions({ id, version }: { id: string; version: string }) {
  const versions = useLoad(() => get<ListPage<Version>>(`/configs/${id}/versions`, { page_size: 100 }), [id, version]);
  const [left, setLeft] = useState<string>('');
  const [right, setRight] = useState<string>('');
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <Async state={versions} what="versions">
        {(data) => {
          const newest = data.data[0]?.version_id ?? '';
          const older = data.data[1]?.version_id ?? newest;
          const a = data.data.find((entry) => entry.version_id === (left || older));
          const b = data.data.find((entry) => entry.version_id === (right || newest));
          const label = (entry: Version, index: number) => `v${data.total - index} — ${formatTime(entry.created_at)}`;
          return (
            <>
              <p class="muted">{data.total} version{data.total === 1 ? '' : 's'}, newest first.</p>
              <div class="row wrap">
                <label>Compare<select value={left || older} onChange={(event) => setLeft((event.target as HTMLSelectElement).value)}>
                  {data.data.map((entry, index) => <option key={entry.version_id} value={entry.version_id}>{label(entry, index)}</option>)}
                </select></label>
                <label>with<select value={right || newest} onChange={(event) => setRight((event.target as HTMLSelectElement).value)}>
                  {data.data.map((entry, index) => <option key={entry.version_id} value={entry.version_id}>{label(entry, index)}</option>)}
                </select></label>
              </div>
              {a && b && (
                <pre class="diff" aria-label="Differences between the two versions" tabIndex={0} data-testid="config-diff">
                  {diffLines(pretty(a.config), pretty(b.config)).map((line, index) => (
                    <div key={index} class={`diff-${line.kind}`}>{line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}{line.text}</div>
                  ))}
                </pre>
              )}
            </>
          );
        }}
      </Async>
    </section>
  );
}

export function ConfigDetail({ id }: { id: string }) {
  const session = useSession();
  const details = useLoad(() => get<{ data: ConfigDetails }>(`/configs/${id}`).then((answer) => answer.data), [id]);
  const canUpdate = session.can('configs.update', 'manager');
  const canDelete = session.can('configs.delete', 'manager');
  const [archiveError, setArchiveError] = useState<unknown>(undefined);
  const archive = async () => {
    if (!confirm('Archive this config? Requests naming it are refused afterwards.')) return;
    try {
      await api('DELETE', `/configs/${id}`);
      navigate('configs');
    } catch (error) {
      setArchiveError(error);
    }
  };
  return (
    <>
      <p><a href={href('configs')}>← All configs</a></p>
      <Async state={details} what="the config">
        {(config) => (
          <>
            <h1>{config.name} <code class="slug">{config.slug}</code></h1>
            <p class="muted">Status {config.status}; updated {formatTime(config.last_updated_at)}; use it with <code>x-gateway-config: {config.slug}</code>.</p>
            <HiddenActions items={[['Save a new version', canUpdate], ['Archive', canDelete]]} />
            <div class="two-columns">
              <section aria-labelledby="edit-title">
                <h2 id="edit-title">{canUpdate.ok ? 'Edit' : 'Config'}</h2>
                {canUpdate.ok && <p class="muted">Credentials show as <code>********</code>: leave one as it is to keep the stored credential, or type a new one.</p>}
                <ConfigEditor initial={pretty(config.config)} label="Config (JSON)" saveLabel="Save new version" disabled={!canUpdate.ok}
                  onSave={async (body) => {
                    await api('PUT', `/configs/${id}`, { body: { config: body } });
                    details.reload();
                  }} />
                {canDelete.ok && <button type="button" class="danger" onClick={archive}>Archive config</button>}
                {archiveError !== undefined && <ErrorNote error={archiveError} />}
              </section>
              <TryIt config={config.slug} />
            </div>
            <Versions id={id} version={config.version_id} />
          </>
        )}
      </Async>
    </>
  );
}
