/** The partials a prompt template includes (`{{> slug}}`), as the renderer wants them: slug -> template text. */
import type { Db } from '../../storage/database.ts';
import { defaultPartialTemplates } from '../../storage/repositories/prompt-partials.ts';

/**
 * The default version's template of each named active partial of the workspace; a slug with no such partial is
 * simply absent (the renderer decides what a missing partial means).
 */
export async function loadPartialTemplates(db: Db, workspaceId: string, slugs: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(slugs)];
  const rows = await defaultPartialTemplates(db, workspaceId, unique);
  return new Map(rows.map((row) => [row.slug, row.template]));
}
