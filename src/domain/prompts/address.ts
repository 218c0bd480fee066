/**
 * How a data-plane request names a prompt and one of its versions (api-surface §6.9): `promptId` (the default
 * version), `promptId@latest`, `promptId@<n>` (version n), `promptId@<label>` (the version carrying the label),
 * where promptId is the prompt's id or slug. Label names cannot be `latest`, `default` or all digits, so the
 * three forms never overlap; `@default` names the default version.
 */
import { invalidParam } from '../../core/errors.ts';

export type VersionAddress =
  | { kind: 'default' }
  | { kind: 'latest' }
  | { kind: 'number'; version: number }
  | { kind: 'label'; label: string };

export interface PromptAddress {
  prompt: string;
  version: VersionAddress;
}

const ADDRESS = /^([a-zA-Z0-9_-]{1,255})(?:@([^@\s/]{1,255}))?$/;
const MAX_VERSION = 2_147_483_647;

export function parsePromptAddress(value: unknown): PromptAddress {
  const match = typeof value === 'string' ? ADDRESS.exec(value) : null;
  if (!match) {
    throw invalidParam('promptId', 'promptId must be a prompt id or slug, optionally followed by @latest, @<version number> or @<label>.');
  }
  const prompt = match[1]!;
  const suffix = match[2];
  if (suffix === undefined || suffix === 'default') return { prompt, version: { kind: 'default' } };
  if (suffix === 'latest') return { prompt, version: { kind: 'latest' } };
  if (/^\d+$/.test(suffix)) {
    const version = Number(suffix);
    if (version < 1 || version > MAX_VERSION) throw invalidParam('promptId', `promptId names version ${suffix}: versions are numbered from 1.`);
    return { prompt, version: { kind: 'number', version } };
  }
  return { prompt, version: { kind: 'label', label: suffix } };
}

export function addressKey(address: PromptAddress): string {
  const { version } = address;
  const suffix = version.kind === 'number' ? String(version.version) : version.kind === 'label' ? `label:${version.label}` : version.kind;
  return `${address.prompt}@${suffix}`;
}
