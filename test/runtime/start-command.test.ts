/**
 * `npm start`'s command as the benchmarks and the compiled build's test read it (scripts/start-command.ts), and the
 * deployment samples in docs/deploy/, which start node themselves (so that signals reach it) and must run it as
 * `npm start` does: the same environment (glibc reads its malloc settings only when a process starts) and flags.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseStartScript, startCommand } from '../../scripts/start-command.ts';

const sample = (name: string) => readFileSync(new URL(`../../docs/deploy/${name}`, import.meta.url), 'utf8');

describe("npm start's command", () => {
  test('a script is read as its variables, node, its flags and its entry point', () => {
    const cases: Array<[string, ReturnType<typeof parseStartScript>]> = [
      ['node dist/main.js', { env: {}, flags: [], entry: 'dist/main.js' }],
      [
        'A_B=1 MALLOC_X_=131072 node --max-old-space-size=512 --no-opt dist/main.js',
        { env: { A_B: '1', MALLOC_X_: '131072' }, flags: ['--max-old-space-size=512', '--no-opt'], entry: 'dist/main.js' },
      ],
      ['  node   --flag   main.js  ', { env: {}, flags: ['--flag'], entry: 'main.js' }],
    ];
    for (const [script, expected] of cases) assert.deepEqual(parseStartScript(script), expected, script);
  });

  test('a script that does not run node, or names no entry point, is refused', () => {
    assert.throws(() => parseStartScript('tsx src/main.ts'), /does not run node/);
    assert.throws(() => parseStartScript('X=1 npm run serve'), /does not run node/);
    assert.throws(() => parseStartScript('node --max-old-space-size=512'), /no entry point/);
    assert.throws(() => parseStartScript('node'), /no entry point/);
  });

  test("package.json's start runs the bundle with glibc's malloc settings", () => {
    const start = startCommand();
    assert.equal(start.entry, 'dist/main.js');
    assert.ok(Object.keys(start.env).some((name) => name.startsWith('MALLOC_')), JSON.stringify(start.env));
  });

  test('the Dockerfile runs node as npm start does', () => {
    const start = startCommand();
    const dockerfile = sample('Dockerfile');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    assert.ok(cmd, 'a CMD in exec form');
    assert.deepEqual(JSON.parse(cmd[1]!), ['node', ...start.flags, start.entry]);
    for (const [name, value] of Object.entries(start.env)) {
      assert.match(dockerfile, new RegExp(`^ENV ${name}=${value}$`, 'm'), `ENV ${name}=${value}`);
    }
  });

  test('the systemd unit runs node as npm start does', () => {
    const start = startCommand();
    const unit = sample('gateway@.service');
    assert.equal(/^ExecStart=(.*)$/m.exec(unit)?.[1], ['/usr/bin/node', ...start.flags, start.entry].join(' '));
    for (const [name, value] of Object.entries(start.env)) {
      assert.match(unit, new RegExp(`^Environment=${name}=${value}$`, 'm'), `Environment=${name}=${value}`);
    }
  });
});
