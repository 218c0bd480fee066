#!/usr/bin/env node
// Runs every *.test.ts under test/ and src/ with node's test runner (explicit file list: a glob or a directory
// argument can silently run nothing) and fails when no test ran.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function find(dir) {
  let files = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) files = files.concat(find(full));
    else if (entry.endsWith('.test.ts')) files.push(full);
  }
  return files;
}

const filter = process.argv.slice(2);
let files = [...find('test'), ...find('src')].sort();
if (filter.length > 0) files = files.filter((file) => filter.some((part) => file.includes(part)));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}

const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=tap', '--test-concurrency=2', ...files],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4000);
});
child.on('close', (code) => {
  const tests = /# tests (\d+)/.exec(tail);
  const pass = /# pass (\d+)/.exec(tail);
  const fail = /# fail (\d+)/.exec(tail);
  if (!tests || Number(tests[1]) === 0) {
    console.error('run-tests: no test ran');
    process.exit(1);
  }
  console.log(`${pass ? pass[1] : 0} passed, ${fail ? fail[1] : 0} failed`);
  process.exit(code ?? 1);
});
