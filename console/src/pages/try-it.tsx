/**
 * "Try it": one chat request through the config (POST /v1/chat/completions with `x-gateway-config`), sent with
 * the signed-in key or another one, showing which target answered, the attempts and every response header.
 */
import { useState } from 'preact/hooks';
import { describeError, rawCall, type RawAnswer } from '../api.ts';
import { href } from '../router.ts';

interface Sent {
  answer: RawAnswer;
  ms: number;
}

function replyText(body: unknown): string | null {
  const content = (body as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0]?.message?.content;
  return typeof content === 'string' ? content : null;
}

function errorText(body: unknown): string | null {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === 'string' ? message : null;
}

export function TryIt({ config }: { config: string }) {
  const [model, setModel] = useState('gpt-4o-mini');
  const [message, setMessage] = useState('Say hello.');
  const [otherKey, setOtherKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<Sent | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const send = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    const started = performance.now();
    try {
      const answer = await rawCall('POST', '/chat/completions', {
        body: { model, messages: [{ role: 'user', content: message }] },
        headers: { 'x-gateway-config': config },
        ...(otherKey.trim() ? { key: otherKey.trim() } : {}),
      });
      setSent({ answer, ms: Math.round(performance.now() - started) });
    } catch (error) {
      setSent(null);
      setFailure(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  const headers = sent ? [...sent.answer.headers.entries()].sort(([a], [b]) => Number(!a.startsWith('x-gateway')) - Number(!b.startsWith('x-gateway')) || a.localeCompare(b)) : [];
  const header = (name: string) => sent?.answer.headers.get(name) ?? null;
  const traceId = header('x-gateway-trace-id');
  return (
    <section aria-labelledby="try-title" class="card">
      <h2 id="try-title">Try it</h2>
      <form onSubmit={send} class="form">
        <label>Model<input value={model} onInput={(event) => setModel((event.target as HTMLInputElement).value)} /></label>
        <label>Message<textarea rows={2} value={message} onInput={(event) => setMessage((event.target as HTMLTextAreaElement).value)} /></label>
        <label>
          Send with another gateway key (optional; empty: your signed-in key)
          <input type="password" autocomplete="off" value={otherKey} onInput={(event) => setOtherKey((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={busy}>{busy ? 'Sending…' : 'Send test request'}</button>
      </form>
      {failure && <p class="error" role="alert">{failure}</p>}
      {sent && (
        <div class="try-result" role="status" data-testid="try-result">
          <p>
            <strong class={sent.answer.status < 400 ? 'ok' : 'error-text'} data-testid="try-status">HTTP {sent.answer.status}</strong> in {sent.ms} ms
          </p>
          {sent.answer.status < 400 ? (
            <dl class="facts">
              <dt>Answered by</dt><dd data-testid="try-target">{header('x-gateway-last-used-option-index') ?? 'the request itself (no target)'}</dd>
              <dt>Provider</dt><dd>{header('x-gateway-provider') ?? '—'}</dd>
              <dt>Retries</dt><dd>{header('x-gateway-retry-attempt-count') ?? '0'}</dd>
              <dt>Cache</dt><dd>{header('x-gateway-cache-status') ?? '—'}</dd>
              <dt>Trace id</dt><dd>{traceId ? <a href={`${href('logs')}?trace_id=${encodeURIComponent(traceId)}`} data-testid="try-trace">{traceId}</a> : '—'}</dd>
              <dt>Reply</dt><dd>{replyText(sent.answer.body) ?? '—'}</dd>
            </dl>
          ) : (
            <p class="error" data-testid="try-error">{errorText(sent.answer.body) ?? 'The gateway refused the request.'}</p>
          )}
          <details>
            <summary>Response headers ({headers.length})</summary>
            <table class="compact">
              <thead><tr><th scope="col">Header</th><th scope="col">Value</th></tr></thead>
              <tbody>{headers.map(([name, value]) => <tr key={name}><td><code>{name}</code></td><td>{value}</td></tr>)}</tbody>
            </table>
          </details>
          <p class="muted">The attempts of each target are in the request's log entry{traceId ? ' (follow the trace id)' : ''}.</p>
        </div>
      )}
    </section>
  );
}
