/** Small shared pieces: loading, empty and error states, pagination, hidden-action notes, a secret shown once. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError } from './api.ts';
import type { Permission } from './session.ts';

export interface Loaded<T> {
  loading: boolean;
  error: unknown;
  data: T | undefined;
  reload(): void;
}

/** Runs `load` now and whenever `deps` change; a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ loading: boolean; error: unknown; data: T | undefined }>({ loading: true, error: undefined, data: undefined });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ loading: false, error: undefined, data }),
      (error: unknown) => mine === generation.current && setState({ loading: false, error, data: undefined }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

export function Loading({ what }: { what: string }) {
  return <p class="muted" role="status" aria-live="polite">Loading {what}…</p>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** An API error in plain words; a 403 reads as why the section is hidden. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error instanceof ApiError && error.status === 403) {
    return <p class="notice" role="note"><strong>Hidden.</strong> {error.message.replace(/^This key/, 'Your key')}</p>;
  }
  return <p class="error" role="alert">{describeError(error)}</p>;
}

/** Loading, error or the content. */
export function Async<T>({ state, what, children }: { state: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  if (state.error !== undefined) return <ErrorNote error={state.error} />;
  if (state.data === undefined) return <Loading what={what} />;
  return <>{children(state.data)}</>;
}

/** Why actions the key cannot take are not shown. */
export function HiddenActions({ items }: { items: Array<[string, Permission]> }) {
  const hidden = items.filter(([, permission]) => !permission.ok);
  if (hidden.length === 0) return null;
  return (
    <div class="notice" role="note" data-testid="hidden-actions">
      <strong>Some actions are not shown:</strong>
      <ul>{hidden.map(([label, permission]) => <li key={label}>{label}: {permission.why}</li>)}</ul>
    </div>
  );
}

export function Pager({ page, size, total, onPage }: { page: number; size: number; total: number; onPage(page: number): void }) {
  const pages = Math.max(1, Math.ceil(total / size));
  if (total <= size) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>Previous</button>
      <span>Page {page + 1} of {pages} ({total} in all)</span>
      <button type="button" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  );
}

/** A secret the API returns once: shown here once, with a copy button. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class="secret" role="region" aria-label={label}>
      <p><strong>{label}</strong> — copy it now: it is shown only once.</p>
      <code data-testid="secret-value">{value}</code>
      <div class="row">
        <button type="button" onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
        <button type="button" class="secondary" onClick={onDone}>Done</button>
      </div>
    </div>
  );
}

export function Json({ value, label }: { value: unknown; label?: string }) {
  return <pre class="json" tabIndex={0} aria-label={label}>{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A form's submit: busy while it runs, its error shown in plain words. */
export function useSubmit<T>(action: () => Promise<T>, onDone?: (result: T) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const submit = async (event?: Event) => {
    event?.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const result = await action();
      onDone?.(result);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit, setError };
}
