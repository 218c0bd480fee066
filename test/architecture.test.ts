/**
 * The shape of src/, read from its import graph: which folders may not depend on which, and no cycles between
 * top-level folders or between files. Type-only imports count: a type dependency still couples the modules.
 *
 * The graph is built with regexes over the file text (no TypeScript compiler), so the whole check stays well
 * under a second. A relative specifier that resolves to no file fails the test: it would mean the parser misread
 * something, and a misread import is a rule silently not checked.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CloudSettings } from '../src/providers/contract.ts';
import { cloudSettingsOf, createProviderRegistry } from '../src/providers/registry.ts';

/**
 * Directions that must not exist. `from` and `to` are folders relative to src/; a file inside a folder (at any
 * depth) is covered by it. To add a rule, add a row.
 */
const FORBIDDEN: ReadonlyArray<{ from: string; to: readonly string[]; why: string }> = [
  { from: 'providers', to: ['http', 'storage', 'routing'], why: 'an adapter is pure conversion behind the contract: no transport, storage or routing' },
  { from: 'domain', to: ['http'], why: 'use cases are called by the transport, never the other way round' },
  { from: 'storage', to: ['http'], why: 'repositories know rows, not requests' },
];

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/** An import edge between two files, as paths relative to src/ with forward slashes. */
interface Edge {
  from: string;
  to: string;
}

// `import x from '...'`, `import type { A } from '...'`, `import '...'`, `export * from '...'`, `export { a } from '...'`,
// anchored at the start of a line so doc comments (` * import ...`) never match; an import clause holds no
// parentheses, `=` or `;`, which keeps the lazy match from running across declarations
const STATIC_IMPORT = /^[ \t]*(?:import|export)\s+(?:type\s+)?(?:[^'"`;()=]*?\s*from\s*)?['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const COMMENT_LINE = /^\s*(?:\/\/|\/?\*)/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.[cm]?[jt]s$/.test(name) ? [path] : [];
  });
}

function specifiers(text: string): string[] {
  const found = [...text.matchAll(STATIC_IMPORT)].map((match) => match[1]!);
  for (const line of text.split('\n')) {
    if (COMMENT_LINE.test(line)) continue;
    for (const match of line.matchAll(DYNAMIC_IMPORT)) found.push(match[1]!);
  }
  return found.filter((specifier) => specifier.startsWith('.'));
}

function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

const toSrcPath = (path: string) => relative(SRC, path).split(sep).join('/');

function readGraph(): { edges: Edge[]; unresolved: string[] } {
  const edges: Edge[] = [];
  const unresolved: string[] = [];
  for (const file of sourceFiles(SRC)) {
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, specifier);
      if (target === undefined) unresolved.push(`${toSrcPath(file)} -> '${specifier}'`);
      else if (target.startsWith(SRC + sep)) edges.push({ from: toSrcPath(file), to: toSrcPath(target) });
    }
  }
  return { edges, unresolved };
}

const inside = (path: string, folder: string) => path.startsWith(`${folder}/`);

/** A file's top-level folder, or the file itself when it sits directly in src/ (app.ts, gateway.ts). */
const topLevel = (path: string) => path.split('/')[0]!;

/** One entry per broken rule: the rule, then each offending import on its own line. */
function forbiddenEdges(edges: readonly Edge[], rules: typeof FORBIDDEN): string[] {
  return rules.flatMap((rule) => {
    const offending = edges.filter((edge) => inside(edge.from, rule.from) && rule.to.some((folder) => inside(edge.to, folder)));
    if (offending.length === 0) return [];
    const lines = offending.map((edge) => `  ${edge.from} -> ${edge.to}`);
    return [[`${rule.from} must not import ${rule.to.join(', ')} (${rule.why}):`, ...lines].join('\n')];
  });
}

/** Strongly connected components with more than one node, or a node importing itself (Tarjan's algorithm). */
function tangles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** One shortest cycle through the component's first node, staying inside the component: `a -> b -> a`. */
function cycleThrough(graph: ReadonlyMap<string, ReadonlySet<string>>, component: readonly string[]): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let step: string | undefined = node; step !== start && step !== undefined; step = previous.get(step)) path.splice(1, 0, step);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component.slice();
}

function graphOf(edges: readonly Edge[], name: (path: string) => string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const edge of edges) {
    const from = name(edge.from);
    const to = name(edge.to);
    if (from === to && edge.from !== edge.to) continue; // inside one node: not a dependency between nodes
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  return graph;
}

/** One cycle per tangle of files. */
function fileCycles(edges: readonly Edge[]): string[] {
  const graph = graphOf(edges, (path) => path);
  return tangles(graph).map((component) => cycleThrough(graph, component).join(' -> '));
}

const SHOWN_PER_STEP = 3;

/** One cycle per tangle of top-level folders, each step followed by the file imports that make it. */
function folderCycles(edges: readonly Edge[]): string[] {
  const graph = graphOf(edges, topLevel);
  return tangles(graph).map((component) => {
    const cycle = cycleThrough(graph, component);
    const steps = cycle.slice(1).map((to, position) => {
      const from = cycle[position]!;
      const imports = edges.filter((edge) => topLevel(edge.from) === from && topLevel(edge.to) === to && edge.from !== edge.to);
      // the step with the fewest imports is usually the one to cut: count them all, show a few
      const shown = imports.slice(0, SHOWN_PER_STEP).map((edge) => `${edge.from} -> ${edge.to}`);
      const more = imports.length > SHOWN_PER_STEP ? `, and ${imports.length - SHOWN_PER_STEP} more` : '';
      return `  ${from} -> ${to} (${imports.length} ${imports.length === 1 ? 'import' : 'imports'}): ${shown.join(', ')}${more}`;
    });
    if (component.length === cycle.length - 1) return [cycle.join(' -> '), ...steps].join('\n');
    // cutting this cycle may leave another among the same folders: name them all, and every dependency between them
    const inner = component.flatMap((from) =>
      [...graph.get(from)!]
        .filter((to) => to !== from && component.includes(to))
        .sort()
        .map((to) => `${from} -> ${to} (${edges.filter((edge) => topLevel(edge.from) === from && topLevel(edge.to) === to).length})`),
    );
    return [`${cycle.join(' -> ')} (tangle: ${component.join(', ')})`, ...steps, `  inside the tangle: ${inner.join(', ')}`].join('\n');
  });
}

function assertNone(title: string, found: readonly string[]): void {
  if (found.length > 0) assert.fail(`${title} (${found.length}):\n${found.join('\n')}`);
}

describe('architecture: the import graph of src/', () => {
  const { edges, unresolved } = readGraph();

  it('reads every relative import it finds', () => {
    assert.ok(edges.length > 100, `only ${edges.length} import edges found: the parser is missing imports`);
    assertNone('imports that resolve to no file', unresolved);
  });

  it('has no import in a forbidden direction', () => {
    assertNone('rules broken', forbiddenEdges(edges, FORBIDDEN));
  });

  it('has no cycle between top-level folders', () => {
    assertNone('folder cycles', folderCycles(edges));
  });

  it('has no cycle between files', () => {
    assertNone('file cycles', fileCycles(edges));
  });
});

// The checker itself, on small made-up graphs: a rule that never fires would pass every time.
describe('architecture: the checker', () => {
  it('finds every kind of import, type-only and dynamic included, and skips comments and packages', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      'import {',
      '  c,',
      '  type D,',
      "} from './c.ts';",
      "import './side-effect.ts';",
      "export * from './e.ts';",
      "export type { F } from './f.ts';",
      "import Fastify from 'fastify';",
      " * import { g } from './in-a-comment.ts';",
      "// const lazy = await import('./commented.ts');",
      "const lazy = await import('./lazy.ts');",
      "export const text = 'from';",
    ].join('\n');
    assert.deepEqual(specifiers(text), ['./a.ts', '../b.ts', './c.ts', './side-effect.ts', './e.ts', './f.ts', './lazy.ts']);
  });

  it('flags a forbidden direction, at any depth of the folder', () => {
    const edges = [
      { from: 'providers/google/request.ts', to: 'http/render.ts' },
      { from: 'providers/google/request.ts', to: 'core/errors.ts' },
      { from: 'httpish/x.ts', to: 'storage/y.ts' },
    ];
    const rules = [{ from: 'providers', to: ['http'], why: 'test' }, { from: 'http', to: ['storage'], why: 'test' }];
    assert.deepEqual(forbiddenEdges(edges, rules), ['providers must not import http (test):\n  providers/google/request.ts -> http/render.ts']);
  });

  it('reports one cycle per tangle of files, and none for a chain', () => {
    const edges = [
      { from: 'a.ts', to: 'b.ts' },
      { from: 'b.ts', to: 'c.ts' },
      { from: 'c.ts', to: 'a.ts' },
      { from: 'c.ts', to: 'd.ts' },
      { from: 'x.ts', to: 'x.ts' },
    ];
    assert.deepEqual(fileCycles(edges), ['a.ts -> b.ts -> c.ts -> a.ts', 'x.ts -> x.ts']);
    assert.deepEqual(fileCycles(edges.slice(0, 2)), []);
  });

  it('names every folder of a tangle the reported cycle leaves out, and the dependencies between them', () => {
    const edges = [
      { from: 'a/one.ts', to: 'b/one.ts' },
      { from: 'b/one.ts', to: 'a/two.ts' },
      { from: 'b/two.ts', to: 'c/one.ts' },
      { from: 'c/one.ts', to: 'b/two.ts' },
      { from: 'c/one.ts', to: 'b/three.ts' },
    ];
    const [report] = folderCycles(edges);
    assert.match(report ?? '', /^a -> b -> a \(tangle: a, b, c\)\n/);
    assert.match(report ?? '', /\n {2}inside the tangle: a -> b \(1\), b -> a \(1\), b -> c \(1\), c -> b \(2\)$/);
  });

  it('reports a folder cycle with the file imports behind each step', () => {
    const edges = [
      { from: 'routing/plan.ts', to: 'cache/step.ts' },
      { from: 'cache/step.ts', to: 'routing/config.ts' },
      { from: 'routing/plan.ts', to: 'routing/config.ts' },
    ];
    assert.deepEqual(folderCycles(edges), [
      'cache -> routing -> cache\n  cache -> routing (1 import): cache/step.ts -> routing/config.ts\n  routing -> cache (1 import): routing/plan.ts -> cache/step.ts',
    ]);
  });
});

/**
 * Provider knowledge lives in src/providers/ (issue 18): outside it no file names a registered provider as a string,
 * nor a cloud's x-gateway-* header prefix, config field or setting key. Those come from the adapters' declarations
 * (src/providers/<vendor>/cloud-settings.ts), so adding a provider touches its folder and one registry line.
 */
/**
 * A secret manager's credentials (api-surface §3.17 auth_config) are spelled like some clouds' config fields
 * (`aws_region`, `aws_access_key_id`, `aws_secret_access_key`, `azure_auth_mode`) but name a secret manager's
 * credentials, not a provider's settings: in these folders those words are allowed. A provider's name, a cloud
 * key or a header prefix still is not.
 */
const SECRET_MANAGER_FOLDERS = ['secrets/managers', 'domain/secret-references', 'http/admin/secret-references'];

describe('architecture: provider knowledge stays in src/providers/', () => {
  const registry = createProviderRegistry();
  const declarations = cloudSettingsOf(registry);

  it('no file outside src/providers/ names a provider, a cloud header prefix or a cloud config field', () => {
    const words = providerWords([...registry.keys()], declarations);
    const withoutFields = providerWords([...registry.keys()], declarations.map((declaration) => ({
      ...declaration,
      settings: declaration.settings.map(({ key }) => ({ key })),
    })));
    const found = sourceFiles(SRC)
      .filter((file) => !inside(toSrcPath(file), 'providers'))
      .flatMap((file) => {
        const path = toSrcPath(file);
        const scan = SECRET_MANAGER_FOLDERS.some((folder) => inside(path, folder)) ? withoutFields : words;
        return providerMentions(readFileSync(file, 'utf8'), scan).map((mention) => `  ${path}:${mention}`);
      });
    assertNone('provider knowledge outside src/providers/', found);
  });

  it('every cloud declaration is well formed: an x-gateway-* prefix, keys under it, config fields spelled like their keys', () => {
    assert.ok(declarations.length > 0, 'no adapter declares cloud settings: the scan above would check nothing');
    const problems = declarations.flatMap(({ headerPrefix, settings }) => {
      if (!/^x-gateway-[a-z0-9]+-$/.test(headerPrefix)) return [`${headerPrefix}: not x-gateway-<cloud>-`];
      const keyPrefix = headerPrefix.slice('x-gateway-'.length);
      return settings.flatMap(({ key, configField }) => [
        ...(key.startsWith(keyPrefix) && /^[a-z0-9-]+$/.test(key) ? [] : [`${key}: not a lower-case key under ${keyPrefix}`]),
        ...(configField === undefined || configField === key.replaceAll('-', '_') ? [] : [`${configField}: not ${key} with underscores`]),
      ]);
    });
    assertNone('malformed cloud declarations', problems);
  });

  it('the scan finds quoted names, prefixes and fields in code, and skips comments and longer words', () => {
    const words = providerWords(['acme', 'acme-cloud'], [{ headerPrefix: 'x-gateway-acme-', settings: [{ key: 'acme-region', configField: 'acme_region' }] }]);
    const text = [
      "if (provider === 'acme') return;",
      'const prefix = `x-gateway-acme-`;',
      'const field = node.acme_region;',
      "cloud['acme-region'];",
      " * `acme` and 'acme-region' in a comment",
      "// 'acme'",
      "const other = 'acme-cloudy' + acme_regions;",
    ].join('\n');
    assert.deepEqual(providerMentions(text, words), ["1: 'acme'", '2: x-gateway-acme-', '3: acme_region', "4: 'acme-region'"]);
  });
});

/** What gives a provider away: its name or a cloud key quoted, a cloud header prefix, a cloud config field. */
interface ProviderWords {
  quoted: RegExp;
  anywhere: RegExp;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function providerWords(names: readonly string[], declarations: readonly CloudSettings[]): ProviderWords {
  const keys = declarations.flatMap(({ settings }) => settings.map(({ key }) => key));
  const fields = declarations.flatMap(({ settings }) => settings.flatMap(({ configField }) => (configField ? [configField] : [])));
  const prefixes = declarations.map(({ headerPrefix }) => headerPrefix);
  return {
    quoted: new RegExp(`(['"\`])(?:${[...names, ...keys].map(escape).join('|')})\\1`, 'g'),
    anywhere: new RegExp([...prefixes.map(escape), ...(fields.length > 0 ? [`\\b(?:${fields.map(escape).join('|')})\\b`] : [])].join('|'), 'g'),
  };
}

/** `line: mention` for each one in the text; quoted names count in code only (a comment may cite a provider). */
function providerMentions(text: string, words: ProviderWords): string[] {
  return text.split('\n').flatMap((line, index) => {
    const quoted = COMMENT_LINE.test(line) ? [] : [...line.matchAll(words.quoted)].map((match) => match[0]);
    const anywhere = [...line.matchAll(words.anywhere)].map((match) => match[0]);
    return [...quoted, ...anywhere].map((mention) => `${index + 1}: ${mention}`);
  });
}
