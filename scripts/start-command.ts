/**
 * `npm start`'s command (package.json's `start` script), read as its parts: the environment it sets before node
 * (glibc's malloc settings, which glibc reads only when a process starts), node's flags, and the entry point. The
 * benchmarks and the compiled build's test start the gateway with exactly these; test/runtime/start-command.test.ts
 * checks the deployment samples (docs/deploy/) against them.
 */
import fs from 'node:fs';

const PACKAGE_JSON = new URL('../package.json', import.meta.url);
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/;

export interface StartCommand {
  /** the variables the script sets before node */
  env: Record<string, string>;
  /** node's flags */
  flags: string[];
  /** the script node runs (dist/main.js) */
  entry: string;
}

export function parseStartScript(script: string): StartCommand {
  const words = script.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let index = 0;
  while (index < words.length) {
    const match = ASSIGNMENT.exec(words[index]!);
    if (!match) break;
    env[match[1]!] = match[2]!;
    index += 1;
  }
  if (words[index] !== 'node') throw new Error(`package.json's start script does not run node: ${script}`);
  const rest = words.slice(index + 1);
  const entry = rest.at(-1);
  if (!entry || entry.startsWith('-')) throw new Error(`package.json's start script names no entry point: ${script}`);
  return { env, flags: rest.slice(0, -1), entry };
}

export function startCommand(): StartCommand {
  const pkg = JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8')) as { scripts: { start: string } };
  return parseStartScript(pkg.scripts.start);
}
