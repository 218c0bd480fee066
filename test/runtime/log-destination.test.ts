/**
 * The gateway's stdout log (src/runtime/log-destination.ts): lines gathered into 4 KB writes, and a lone line written
 * within the flush interval instead of waiting for later lines. Written to a real file through pino.
 */
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { gatheredDestination } from '../../src/runtime/log-destination.ts';

function tempFile(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-destination-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'out.log');
  fs.writeFileSync(file, '');
  return file;
}

/** resolves when the file holds `text`, checked after each of the destination's writes */
function whenHolds(destination: EventEmitter, file: string, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!fs.readFileSync(file, 'utf8').includes(text)) return;
      destination.off('write', check);
      resolve();
    };
    destination.on('write', check);
  });
}

test('a lone line is held (no 4 KB yet) and written by the timer', async (t) => {
  const file = tempFile(t);
  const destination = gatheredDestination({ dest: file, flushEveryMs: 300 });
  t.after(() => destination.destroy());
  // the flush timer is unref'd (it never keeps a process alive): the test's process needs something that does
  const alive = setTimeout(() => undefined, 10_000);
  t.after(() => clearTimeout(alive));
  const logger = pino({ base: null }, destination);
  const written = whenHolds(destination, file, 'a database outage');
  const loggedAt = performance.now();
  logger.warn('a database outage');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(fs.readFileSync(file, 'utf8'), '', 'gathered, not written line by line');
  await written;
  const waited = performance.now() - loggedAt;
  assert.ok(waited < 2_000, `written ${waited.toFixed(0)} ms after it was logged`);
  assert.match(fs.readFileSync(file, 'utf8'), /^\{"level":40,"time":\d+,"msg":"a database outage"\}\n$/);
});

test('a page of lines is written without the timer; flush writes the rest at once', async (t) => {
  const file = tempFile(t);
  const destination = gatheredDestination({ dest: file, minLength: 4096, flushEveryMs: 0 });
  t.after(() => destination.destroy());
  await once(destination, 'ready'); // lines written before the file is open go out together when it is
  const logger = pino({ base: null }, destination);
  // ~6 KB of lines: the first 4 KB or more go out on their own, the lines after them stay held
  const page = whenHolds(destination, file, 'line 10 ');
  for (let index = 0; index < 70; index += 1) logger.info(`line ${index} ${'x'.repeat(40)}`);
  await page;
  assert.ok(!fs.readFileSync(file, 'utf8').includes('line 69 '), 'the last lines wait for a page or a flush');
  logger.info('the last one');
  await new Promise<void>((resolve, reject) => destination.flush((error) => (error ? reject(error) : resolve())));
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  assert.equal(lines.length, 71);
  assert.equal(JSON.parse(lines[70]!).msg, 'the last one');
});
