/**
 * What a prompt version stores, from the admin API's fields: the template (checked to parse as messages or text,
 * and as mustache), the model parameters, tools and functions. Versions are immutable, so every check runs once,
 * when the version is made; the data plane reads them as stored.
 */
import { invalidParam } from '../../core/errors.ts';
import type { PromptVersionRow } from '../../storage/repositories/prompts.ts';
import type { PromptVersionInput } from './inputs.ts';
import { partialsNamed } from './render.ts';
import { parseTemplate } from './template.ts';

export interface VersionFields {
  template: string;
  parameters: Record<string, unknown>;
  model: string | null;
  functions: unknown[] | null;
  tools: unknown[] | null;
  toolChoice: unknown;
  templateMetadata: Record<string, unknown> | null;
  isRawTemplate: boolean;
}

const VERSION_KEYS = ['string', 'parameters', 'model', 'functions', 'tools', 'tool_choice', 'template_metadata', 'prompt_metadata', 'is_raw_template'] as const;

/** the template gives the messages; the request gives `stream` */
const NOT_PARAMETERS = ['messages', 'prompt', 'stream'] as const;

export function touchesVersion(input: PromptVersionInput): boolean {
  return VERSION_KEYS.some((key) => input[key] !== undefined);
}

export function fieldsOf(row: PromptVersionRow): VersionFields {
  return {
    template: row.template,
    parameters: row.parameters,
    model: row.model,
    functions: row.functions ?? null,
    tools: row.tools ?? null,
    toolChoice: row.toolChoice ?? null,
    templateMetadata: row.templateMetadata ?? null,
    isRawTemplate: row.isRawTemplate,
  };
}

function checkFields(fields: VersionFields): VersionFields {
  for (const key of NOT_PARAMETERS) {
    if (Object.hasOwn(fields.parameters, key)) throw invalidParam(`parameters.${key}`, `parameters.${key} cannot be saved with a prompt: ${key === 'stream' ? 'each request says whether it streams' : 'the template gives the messages'}.`);
  }
  // parses the messages and every text as mustache (unclosed sections, nesting too deep): a 400 naming where
  partialsNamed(parseTemplate(fields.template, fields.isRawTemplate));
  return fields;
}

/**
 * The fields of a new version. With `base` (a patch), what the input leaves out is the base's; without it the
 * input is the whole version and `string` must be in it.
 */
export function versionFields(input: PromptVersionInput, base: VersionFields | undefined): VersionFields {
  const template = input.string ?? base?.template;
  if (template === undefined) throw invalidParam('string', 'string (the template) is required when a version field changes without patch: true.');
  const pick = <T>(given: T | undefined, fallback: T): T => (given !== undefined ? given : fallback);
  const metadata = input.template_metadata !== undefined ? input.template_metadata : input.prompt_metadata;
  return checkFields({
    template,
    parameters: pick(input.parameters, base?.parameters ?? {}),
    model: pick(input.model, base?.model ?? null),
    functions: pick(input.functions, base?.functions ?? null),
    tools: pick(input.tools, base?.tools ?? null),
    toolChoice: pick<unknown>(input.tool_choice, base?.toolChoice ?? null),
    templateMetadata: pick(metadata, base?.templateMetadata ?? null),
    isRawTemplate: input.is_raw_template === undefined ? (base?.isRawTemplate ?? false) : Boolean(input.is_raw_template),
  });
}

/** Whether two versions hold the same content: an update that changes nothing makes no version. */
export function sameFields(a: VersionFields, b: VersionFields): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Key order does not make a change: objects compared with sorted keys. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
}
