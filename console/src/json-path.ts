/**
 * Where a path the API names (`config.targets[0].retry.attempts`) sits in the JSON text being edited: the character
 * range of its value, or, when the API names a field that is missing, of the deepest part that exists.
 */
export type Segment = string | number;

export function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[1] !== undefined) segments.push(match[1]);
  }
  return segments;
}

interface Located {
  start: number;
  end: number;
  /** how many segments were found */
  depth: number;
}

/** A tiny scanner over JSON text: enough to find where each value starts and ends. */
class Scanner {
  position = 0;
  constructor(readonly text: string) {}

  skip(): void {
    while (/\s/.test(this.text[this.position] ?? '')) this.position += 1;
  }

  string(): string {
    const start = this.position;
    this.position += 1;
    while (this.position < this.text.length && this.text[this.position] !== '"') {
      this.position += this.text[this.position] === '\\' ? 2 : 1;
    }
    this.position += 1;
    return JSON.parse(this.text.slice(start, this.position)) as string;
  }

  /** Skips one value; with `path`, descends into it and reports where the path leads. */
  value(path: Segment[], depth: number, best: Located): Located {
    this.skip();
    const start = this.position;
    const char = this.text[this.position];
    let found = best;
    if (char === '{') {
      this.position += 1;
      for (;;) {
        this.skip();
        if (this.text[this.position] === '}') break;
        const keyStart = this.position;
        const key = this.string();
        const keyEnd = this.position;
        this.skip();
        this.position += 1; // :
        const wanted = path[depth] === key;
        if (wanted) found = { start: keyStart, end: keyEnd, depth: depth + 1 };
        const inner = this.value(wanted ? path : [], depth + 1, found);
        if (wanted) found = inner;
        this.skip();
        if (this.text[this.position] === ',') this.position += 1;
        else break;
      }
      this.position += 1;
    } else if (char === '[') {
      this.position += 1;
      for (let index = 0; ; index += 1) {
        this.skip();
        if (this.text[this.position] === ']') break;
        const wanted = path[depth] === index;
        const inner = this.value(wanted ? path : [], depth + 1, found);
        if (wanted) found = inner;
        this.skip();
        if (this.text[this.position] === ',') this.position += 1;
        else break;
      }
      this.position += 1;
    } else if (char === '"') {
      this.string();
    } else {
      while (this.position < this.text.length && !/[\s,}\]]/.test(this.text[this.position]!)) this.position += 1;
    }
    // the path ends here: this value is what it names
    if (found.depth === depth && path.length === depth && depth > 0) return { start, end: this.position, depth };
    return found;
  }
}

/** The range to highlight for `segments` in `text` (valid JSON), or null when not even its first part is there. */
export function locate(text: string, segments: Segment[]): { start: number; end: number; exact: boolean } | null {
  try {
    const found = new Scanner(text).value(segments, 0, { start: 0, end: 0, depth: 0 });
    if (found.depth === 0) return null;
    return { start: found.start, end: found.end, exact: found.depth === segments.length };
  } catch {
    return null;
  }
}

/** 1-based line and column of an offset. */
export function lineOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1 };
}
