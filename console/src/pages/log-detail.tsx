/** One request's record: the request, the response, each attempt and the guardrail verdicts. */
import { useEffect, useRef } from 'preact/hooks';
import { get } from '../api.ts';
import { Async, Json, formatTime, useLoad } from '../ui.tsx';

interface LogObject {
  id: string;
  created_at: string;
  request: { url: string; method: string; headers: Record<string, string>; body: unknown; gatewayHeaders: Record<string, string> };
  response: { status: number; headers: Record<string, string>; body: unknown; responseTime: number | null; lastUsedOptionJsonPath: string };
  metrics: { attempts: unknown; hook_results: unknown; trace_id: string | null; ai_org: string | null; ai_model: string | null; total_units: number | null; cost: number | null; error: unknown };
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && Object.keys(value as object).length === 0);
}

export function LogDetail({ id, onClose }: { id: string; onClose(): void }) {
  const log = useLoad(() => get<LogObject>(`/logs/${id}`), [id]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [id]);
  // the pane overlays the table on narrow screens: Escape closes it, as any overlay
  useEffect(() => {
    const escape = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    addEventListener('keydown', escape);
    return () => removeEventListener('keydown', escape);
  }, [onClose]);
  return (
    <aside class="detail card" aria-labelledby="log-detail-title" data-testid="log-detail">
      <div class="row between">
        <h2 id="log-detail-title" tabIndex={-1} ref={heading}>Request</h2>
        <button type="button" class="secondary" onClick={onClose}>Close</button>
      </div>
      <Async state={log} what="the request">
        {(row) => (
          <>
            <dl class="facts">
              <dt>Time</dt><dd>{formatTime(row.created_at)}</dd>
              <dt>Route</dt><dd>{row.request.method} {row.request.url}</dd>
              <dt>Status</dt><dd>{row.response.status}</dd>
              <dt>Answered by</dt><dd>{row.response.lastUsedOptionJsonPath}</dd>
              <dt>Model</dt><dd>{row.metrics.ai_org ?? '—'} / {row.metrics.ai_model ?? '—'}</dd>
              <dt>Trace id</dt><dd><code>{row.metrics.trace_id ?? '—'}</code></dd>
            </dl>
            <h3>Attempts</h3>
            {isEmpty(row.metrics.attempts) ? <p class="muted">One attempt, no retries or fallbacks.</p> : <Json value={row.metrics.attempts} label="Attempts" />}
            <h3>Guardrail verdicts</h3>
            {isEmpty(row.metrics.hook_results) ? <p class="muted">No guardrail ran on this request.</p> : <Json value={row.metrics.hook_results} label="Guardrail verdicts" />}
            {!isEmpty(row.metrics.error) && <><h3>Error</h3><Json value={row.metrics.error} label="Error" /></>}
            <h3>Request</h3>
            <details><summary>Headers</summary><Json value={{ ...row.request.headers, ...row.request.gatewayHeaders }} label="Request headers" /></details>
            <Json value={row.request.body} label="Request body" />
            <h3>Response</h3>
            <details><summary>Headers</summary><Json value={row.response.headers} label="Response headers" /></details>
            <Json value={row.response.body} label="Response body" />
          </>
        )}
      </Async>
    </aside>
  );
}
