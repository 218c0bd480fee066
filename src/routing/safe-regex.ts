/**
 * Guards the `$regex` of conditional routing. A config comes from the client, and JavaScript regexes backtrack:
 * `(a+)+$` against a long string of `a`s blocks the event loop for every request. Without an RE2 engine we refuse
 * the patterns that cause exponential backtracking in practice, at parse time:
 * - longer than MAX_REGEX_LENGTH characters (500);
 * - a repeated group that itself contains repetition (star height above 1: `(a+)+`, `(\w*\s?)*`, `(x{1,3})+`).
 * This is a heuristic, not a proof: alternations of overlapping branches such as `(a|a)*` still pass. The lead's
 * executor evaluates conditions on bounded inputs (headers and a size-limited body), which bounds the rest.
 */
export const MAX_REGEX_LENGTH = 500;
/** Flags a `$options` value may hold: case-insensitive, multi-line and dot-all; never `g`/`y` (stateful `test`). */
const OPTIONS = /^[ims]*$/;

export type RegexProblem = 'too_long' | 'nested_quantifier' | 'invalid' | 'invalid_options';

export function regexProblem(pattern: string, options = ''): RegexProblem | undefined {
  if (pattern.length > MAX_REGEX_LENGTH) return 'too_long';
  if (!OPTIONS.test(options)) return 'invalid_options';
  try {
    new RegExp(pattern, options);
  } catch {
    return 'invalid';
  }
  return hasNestedRepetition(pattern) ? 'nested_quantifier' : undefined;
}

/**
 * True when a group containing an unbounded or ranged quantifier (`*`, `+`, `{n,}`, `{n,m}`) is itself quantified
 * that way. Escapes and character classes are skipped; `?` and `{n}` do not repeat an unbounded number of ways.
 */
function hasNestedRepetition(pattern: string): boolean {
  // one entry per open group: does the group contain repetition so far
  const groups: boolean[] = [false];
  let afterRepeatingGroup = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      i++;
      afterRepeatingGroup = false;
    } else if (char === '[') {
      i = endOfClass(pattern, i);
      afterRepeatingGroup = false;
    } else if (char === '(') {
      groups.push(false);
      afterRepeatingGroup = false;
    } else if (char === ')') {
      const inner = groups.pop() ?? false;
      if (groups.length === 0) groups.push(false);
      if (inner) groups[groups.length - 1] = true;
      afterRepeatingGroup = inner;
    } else if (char === '*' || char === '+' || (char === '{' && /^\{\d*,\d*\}/.test(pattern.slice(i)))) {
      if (afterRepeatingGroup) return true;
      groups[groups.length - 1] = true;
    } else {
      afterRepeatingGroup = false;
    }
  }
  return false;
}

/** The index of the `]` closing the class opened at `start` (escapes inside the class are skipped). */
function endOfClass(pattern: string, start: number): number {
  let i = start + 1;
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i;
}
