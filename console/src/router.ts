/** A hash router: `#/<page>/<id>?<query>`. The server never sees the fragment, so deep links need nothing from it. */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  page: string;
  parts: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = text.split('?', 2);
  const [page = '', ...parts] = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { page, parts, query: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export function href(page: string, ...parts: string[]): string {
  return `#/${[page, ...parts].map(encodeURIComponent).join('/')}`;
}

export function navigate(page: string, ...parts: string[]): void {
  location.hash = href(page, ...parts);
}

/** What every page gets from the shell. */
export interface PageProps {
  route: Route;
  /** a page that creates or deletes a workspace tells the picker */
  onWorkspacesChanged(): void;
}
