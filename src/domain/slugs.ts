/**
 * Slugs of admin resources, as in the reference's examples: `<prefix>-<name, slugified, cut short>-<6 hex>`
 * (`ws-test-a-174eb1`, `pg-patron-1d0224`, `pc-pii-re-7f1051`), or the one the client gives.
 */
import { randomBytes } from 'node:crypto';
import { conflict, invalidParam } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';

const ATTEMPTS = 5;

export const randomHex6 = (): string => randomBytes(3).toString('hex');

export function prefixedSlug(prefix: string, name: string, stemLength: number, fallback: string, randomHex: () => string = randomHex6): string {
  const stem = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents split off by NFKD: "Über" -> "uber"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, stemLength)
    .replace(/-+$/, '');
  return `${prefix}-${stem || fallback}-${randomHex()}`;
}

export interface SlugChoice {
  /** the client's slug, if any */
  requested: string | undefined;
  generate: () => string;
  taken: (slug: string) => Promise<boolean>;
  /** `a workspace`, `a guardrail`: for the messages */
  resource: string;
  /** the 409's code, e.g. `workspace_slug_taken` */
  conflictCode: string;
}

/** The requested slug when it is free (else a 409), or a generated one that is. */
export async function chooseSlug(choice: SlugChoice): Promise<string> {
  const { requested } = choice;
  if (requested !== undefined) {
    // a path parameter is read as an id when it looks like one, so a UUID-shaped slug could never be addressed
    if (isUuid(requested)) throw invalidParam('slug', 'slug must not have the form of a UUID.');
    if (await choice.taken(requested)) throw conflict(`${capitalise(choice.resource)} with slug "${requested}" already exists.`, choice.conflictCode);
    return requested;
  }
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const slug = choice.generate();
    if (!(await choice.taken(slug))) return slug;
  }
  throw conflict(`Could not generate a free ${choice.resource.replace(/^an? /, '')} slug; give one explicitly.`, choice.conflictCode);
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
