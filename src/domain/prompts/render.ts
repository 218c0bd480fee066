/**
 * Rendering a prompt template with mustache (https://mustache.github.io/mustache.5.html): variables, sections,
 * inverted sections and partials (`{{> slug}}`). Pure: the template, the variables and the partials' templates
 * in, the rendered messages out.
 *
 * - No HTML escaping: `{{x}}` and `{{{x}}}` both insert the value as it is (a prompt is not HTML). Objects and
 *   arrays are inserted as JSON, numbers and booleans as text.
 * - Rendering never runs code: names are looked up in the variables' own properties only (never a prototype's,
 *   so `{{constructor}}` is empty rather than a function mustache would call), and JSON holds no functions.
 * - Required variables: every `{{name}}` outside any section, in the template and in the partials it includes
 *   outside sections. Inside a section a name is looked up in the section's item first, and an inverted section
 *   exists to handle absence, so names under `{{#...}}` / `{{^...}}` (and section names themselves) are optional.
 *   A required name that is absent or null is a 400 naming `variables.<name>`.
 */
import Mustache from 'mustache';
import { boundedLru } from '../../core/lru.ts';
import { invalidParam } from '../../core/errors.ts';
import { templateTexts, type PromptTemplate, type TemplateMessage, type TemplatePart } from './template.ts';

/** sections nested deeper than this are refused: rendering recurses once per level */
export const MAX_SECTION_DEPTH = 32;

type Tokens = Mustache.TemplateSpans;
type Token = Tokens[number];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** `a.b.c` in `view`'s own properties: whether it is there, and its value. */
function ownPath(view: unknown, names: readonly string[]): { hit: boolean; value: unknown } {
  let value: unknown = view;
  for (const name of names) {
    if (!isObject(value) || !Object.hasOwn(value, name)) return { hit: false, value: undefined };
    value = value[name];
  }
  return { hit: true, value };
}

/** Mustache's context stack, with lookups confined to own properties. */
class VariablesContext extends Mustache.Context {
  override push(view: unknown): Mustache.Context {
    return new VariablesContext(view, this);
  }

  override lookup(name: string): unknown {
    if (name === '.') return this.view;
    const names = name.split('.');
    for (let context: Mustache.Context | undefined = this; context; context = context.parent) {
      const found = ownPath(context.view, names);
      if (found.hit) return found.value;
    }
    return undefined;
  }
}

function formatValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Both `{{x}}` and `{{{x}}}` insert the value unescaped, formatted by formatValue. */
class PromptWriter extends Mustache.Writer {
  override escapedValue(token: string[], context: Mustache.Context): string {
    return formatValue(context.lookup(token[1]!));
  }

  override unescapedValue(token: string[], context: Mustache.Context): string {
    return formatValue(context.lookup(token[1]!));
  }
}

const writer = new PromptWriter();
// the default writer keeps every template it ever parsed; templates come from the database, so bound the cache
const parsed = boundedLru<string, string>(2_000);
(writer as unknown as { templateCache: Mustache.TemplateCache }).templateCache = {
  set: (key, value) => void parsed.set(key, value),
  get: (key) => parsed.get(key),
  clear: () => parsed.clear(),
};

/** The tokens of one template; a malformed one (unclosed section or tag) is a 400 naming where it sits. */
export function parseMustache(source: string, path: string): Tokens {
  try {
    return writer.parse(source) as Tokens;
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unreadable';
    throw invalidParam(path, `${path} is not a valid mustache template: ${reason}.`, 'invalid_prompt_template');
  }
}

export interface TemplateAnalysis {
  /** dotted names needed outside any section, in order of first use */
  required: string[];
  /** partials named outside any section: their own required names count too */
  requiredPartials: string[];
  /** every partial named anywhere */
  partials: string[];
}

function walk(tokens: Tokens, inSection: boolean, depth: number, path: string, into: TemplateAnalysis): void {
  if (depth > MAX_SECTION_DEPTH) throw invalidParam(path, `${path} nests sections deeper than ${MAX_SECTION_DEPTH} levels.`, 'invalid_prompt_template');
  for (const token of tokens as Token[]) {
    const [kind, name] = token;
    if ((kind === 'name' || kind === '&') && !inSection && name !== '.' && !into.required.includes(name)) into.required.push(name);
    if (kind === '>') {
      if (!into.partials.includes(name)) into.partials.push(name);
      if (!inSection && !into.requiredPartials.includes(name)) into.requiredPartials.push(name);
    }
    if ((kind === '#' || kind === '^') && Array.isArray(token[4])) walk(token[4], true, depth + 1, path, into);
  }
}

export function analyseTemplate(source: string, path: string): TemplateAnalysis {
  const analysis: TemplateAnalysis = { required: [], requiredPartials: [], partials: [] };
  walk(parseMustache(source, path), false, 0, path, analysis);
  return analysis;
}

/** Every partial a template names (for loading them), checking each text parses. */
export function partialsNamed(template: PromptTemplate): string[] {
  const names = new Set<string>();
  for (const text of templateTexts(template)) for (const name of analyseTemplate(text.source, text.path).partials) names.add(name);
  return [...names];
}

/** The required names of `analysis`, with those of the partials it includes outside sections (each partial once). */
function requiredNames(analysis: TemplateAnalysis, partials: ReadonlyMap<string, string>, seen: Set<string>, into: Set<string>): void {
  for (const name of analysis.required) into.add(name);
  for (const slug of analysis.requiredPartials) {
    const source = partials.get(slug);
    if (source === undefined || seen.has(slug)) continue;
    seen.add(slug);
    requiredNames(analyseTemplate(source, `partials.${slug}`), partials, seen, into);
  }
}

/** The variables a template needs, in order of first use. */
export function requiredVariables(template: PromptTemplate, partials: ReadonlyMap<string, string>): string[] {
  const names = new Set<string>();
  for (const text of templateTexts(template)) requiredNames(analyseTemplate(text.source, text.path), partials, new Set(), names);
  return [...names];
}

export interface RenderedMessage {
  role: string;
  content: string | Array<Record<string, unknown>> | null;
  [field: string]: unknown;
}

function renderText(source: string, variables: Readonly<Record<string, unknown>>, partials: ReadonlyMap<string, string>): string {
  return writer.render(source, new VariablesContext(variables), (name) => partials.get(name));
}

function renderPart(part: TemplatePart, render: (source: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...part };
  if (typeof part.text === 'string') out.text = render(part.text);
  const image = part.image_url;
  if (isObject(image) && typeof image.url === 'string') out.image_url = { ...image, url: render(image.url) };
  return out;
}

function renderMessage(message: TemplateMessage, render: (source: string) => string): RenderedMessage {
  const content = message.content;
  if (typeof content === 'string') return { ...message, content: render(content) };
  if (content === null) return { ...message, content: null };
  return { ...message, content: content.map((part) => renderPart(part, render)) };
}

/**
 * The template's messages, filled in. The partials must already hold every partial the template reaches
 * (load-partials.ts checks that); a required variable that is absent or null is a 400 naming it.
 */
export function renderPrompt(template: PromptTemplate, variables: Readonly<Record<string, unknown>>, partials: ReadonlyMap<string, string>): RenderedMessage[] {
  for (const name of requiredVariables(template, partials)) {
    const found = ownPath(variables, name.split('.'));
    if (!found.hit || found.value === null || found.value === undefined) {
      throw invalidParam(`variables.${name}`, `The prompt needs the variable "${name}"; it is missing from variables.`, 'missing_prompt_variable');
    }
  }
  const render = (source: string) => renderText(source, variables, partials);
  if (template.kind === 'text') return [{ role: 'user', content: render(template.text) }];
  return template.messages.map((message) => renderMessage(message, render));
}
