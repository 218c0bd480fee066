/**
 * A prompt as the data plane runs it: the addressed version, its template parsed, and every partial it reaches
 * (`{{> slug}}`, nested at most MAX_PARTIAL_DEPTH deep, no cycles), loaded once. saved-prompts.ts holds the result
 * in process.
 */
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findPrompt, findPromptVersion, findUsableLabel, type PromptRow, type PromptVersionRow } from '../../storage/repositories/prompts.ts';
import { loadPartialTemplates } from '../prompt-partials/load-partials.ts';
import type { PromptAddress } from './address.ts';
import { fieldsOf, type VersionFields } from './definition.ts';
import { analyseTemplate, partialsNamed } from './render.ts';
import { parseTemplate, type PromptTemplate } from './template.ts';

export const MAX_PARTIAL_DEPTH = 5;

export interface RunnablePrompt {
  id: string;
  slug: string;
  organisationId: string;
  workspaceId: string;
  virtualKey: string | null;
  version: { id: string; number: number; fields: VersionFields };
  template: PromptTemplate;
  partials: ReadonlyMap<string, string>;
}

export type LoadedPrompt = RunnablePrompt | { missing: 'prompt' | 'version' };

function findCycle(graph: ReadonlyMap<string, readonly string[]>): string | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const visit = (slug: string): string | undefined => {
    if (state.get(slug) === 'done') return undefined;
    if (state.get(slug) === 'open') return slug;
    state.set(slug, 'open');
    for (const next of graph.get(slug) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    state.set(slug, 'done');
    return undefined;
  };
  for (const slug of graph.keys()) {
    const cycle = visit(slug);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Every partial the template reaches; a missing one, a cycle or too deep a nesting is a 400 naming the partial. */
export async function collectPartials(db: Db, workspaceId: string, template: PromptTemplate): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const graph = new Map<string, string[]>();
  let wanted = partialsNamed(template);
  for (let depth = 0; wanted.length > 0; depth += 1) {
    if (depth >= MAX_PARTIAL_DEPTH) throw invalidParam(`partials.${wanted[0]}`, `Partials nest deeper than ${MAX_PARTIAL_DEPTH} levels (at "${wanted[0]}").`, 'invalid_prompt_template');
    const loaded = await loadPartialTemplates(db, workspaceId, wanted);
    const next = new Set<string>();
    for (const slug of wanted) {
      const source = loaded.get(slug);
      if (source === undefined) throw invalidParam(`partials.${slug}`, `The prompt includes the partial "${slug}", which does not exist in its workspace.`, 'prompt_partial_not_found');
      found.set(slug, source);
      const names = analyseTemplate(source, `partials.${slug}`).partials;
      graph.set(slug, names);
      for (const name of names) if (!found.has(name) && !wanted.includes(name)) next.add(name);
    }
    wanted = [...next];
  }
  const cycle = findCycle(graph);
  if (cycle) throw invalidParam(`partials.${cycle}`, `The partial "${cycle}" includes itself (directly or through other partials).`, 'invalid_prompt_template');
  return found;
}

async function addressedVersion(db: Db, prompt: PromptRow, address: PromptAddress): Promise<PromptVersionRow | undefined> {
  const { version } = address;
  switch (version.kind) {
    case 'default':
      return findPromptVersion(db, prompt.id, { version: prompt.defaultVersion });
    case 'latest':
      return findPromptVersion(db, prompt.id, { latest: true });
    case 'number':
      return findPromptVersion(db, prompt.id, { version: version.version });
    case 'label': {
      const label = await findUsableLabel(db, prompt.organisationId, prompt.workspaceId, version.label);
      return label ? findPromptVersion(db, prompt.id, { labelId: label.id }) : undefined;
    }
  }
}

export async function loadRunnablePrompt(db: Db, organisationId: string, preferredWorkspaceId: string, address: PromptAddress): Promise<LoadedPrompt> {
  const prompt = await findPrompt(db, organisationId, address.prompt, preferredWorkspaceId);
  if (!prompt) return { missing: 'prompt' };
  const version = await addressedVersion(db, prompt, address);
  if (!version) return { missing: 'version' };
  const fields = fieldsOf(version);
  const template = parseTemplate(fields.template, fields.isRawTemplate);
  return {
    id: prompt.id,
    slug: prompt.slug,
    organisationId: prompt.organisationId,
    workspaceId: prompt.workspaceId,
    virtualKey: prompt.virtualKey,
    version: { id: version.id, number: version.version, fields },
    template,
    partials: await collectPartials(db, prompt.workspaceId, template),
  };
}
