/**
 * Walks over a parsed JSON value that find the first value a later stage cannot take, and name where it is
 * (`messages[0].x`, `max_tokens`), so the 400 can name the field:
 * - a number that is not finite: JSON.parse turns `1e309` into Infinity, which JSON.stringify would send on as
 *   `null` and a provider would read as something else again;
 * - a string (value or key) with a NUL character, which PostgreSQL refuses in text (a 500 otherwise).
 *
 * The walks use an explicit stack: JSON.parse accepts nesting deeper than the call stack would allow a recursion.
 * The first pass only finds out whether there is such a value (no path strings built); the path is worked out
 * only when there is one.
 */

type Test = (value: unknown, key: string | undefined) => boolean;

const isNonFinite: Test = (value) => typeof value === 'number' && !Number.isFinite(value);
const hasNul: Test = (value, key) => (typeof value === 'string' && value.includes('\u0000')) || (key !== undefined && key.includes('\u0000'));

/** true when some value of `root` (or the key it sits under) passes `test`; allocation-free for flat values */
function some(root: unknown, test: Test): boolean {
  if (test(root, undefined)) return true;
  if (typeof root !== 'object' || root === null) return false;
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (const item of node) {
        if (test(item, undefined)) return true;
        if (typeof item === 'object' && item !== null) stack.push(item);
      }
    } else {
      for (const key in node) {
        const item = (node as Record<string, unknown>)[key];
        if (test(item, key)) return true;
        if (typeof item === 'object' && item !== null) stack.push(item);
      }
    }
  }
  return false;
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** the path of a value that passes `test` (a node's own values before deeper ones); '' for the root itself */
function firstPath(root: unknown, test: Test): string | undefined {
  if (test(root, undefined)) return '';
  const stack: Array<{ node: unknown; path: string }> = [{ node: root, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const children: Array<{ node: unknown; path: string }> = [];
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) {
        if (test(item, undefined)) return join(path, index);
        children.push({ node: item, path: join(path, index) });
      }
    } else {
      for (const key in node) {
        const item = (node as Record<string, unknown>)[key];
        if (test(item, key)) return join(path, key);
        children.push({ node: item, path: join(path, key) });
      }
    }
    // reversed, so the first child is visited first
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!);
  }
  return undefined;
}

/** Where a non-finite number is (`''` for the root), or undefined when every number is finite. */
export function nonFiniteNumberPath(root: unknown): string | undefined {
  return some(root, isNonFinite) ? firstPath(root, isNonFinite) : undefined;
}

/**
 * Where a string or key with a NUL character is (`''` for the root), or undefined when there is none. A NUL in a
 * key is written `\u0000` in the path, so the error names it readably.
 */
export function nulCharacterPath(root: unknown): string | undefined {
  return some(root, hasNul) ? firstPath(root, hasNul)?.replaceAll('\u0000', '\\u0000') : undefined;
}
