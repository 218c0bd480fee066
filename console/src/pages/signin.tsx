/** Sign in with an admin or workspace API key: checked against the API before it is kept (in sessionStorage). */
import { useState } from 'preact/hooks';
import { describeError } from '../api.ts';
import { identify, type Identity } from '../session.ts';

export function SignIn({ onSignedIn }: { onSignedIn(key: string, identity: Identity): void }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(key.trim(), await identify(key.trim()));
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="center" id="main">
      <form class="card signin" onSubmit={submit} aria-describedby="signin-help">
        <h1>Gateway console</h1>
        <p id="signin-help" class="muted">
          Sign in with an admin or workspace API key. It is kept in this tab's session storage only, and sent in the
          <code> x-gateway-api-key</code> header to this gateway's admin API.
        </p>
        <label>
          API key
          <input type="password" autocomplete="off" required value={key} onInput={(event) => setKey((event.target as HTMLInputElement).value)} />
        </label>
        {error && <p class="error" role="alert">{error}</p>}
        <button type="submit" disabled={busy || key.trim() === ''}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
