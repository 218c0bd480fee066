/**
 * chunksUntilBroken (src/core/readable-chunks.ts): a stream's chunks as `for await` gives them, plus the chunks a
 * stream had received before it was destroyed with an error, which Node's own iterator drops.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { chunksUntilBroken } from '../src/core/readable-chunks.ts';

async function collect(chunks: AsyncIterable<Buffer>): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const chunk of chunks) out.push(String(chunk));
  } catch (error) {
    out.push(`error: ${(error as Error).message}`);
  }
  return out;
}

/** a stream that received `Hel` and then broke, before anyone read it */
function brokenAfterHel(): Readable {
  const stream = new Readable({ read() {} });
  stream.push(Buffer.from('Hel'));
  stream.destroy(new Error('other side closed'));
  return stream;
}

test('a stream that broke gives what it had received, then its error', async () => {
  assert.deepEqual(await collect(chunksUntilBroken(brokenAfterHel())), ['Hel', 'error: other side closed']);
  // the reason it exists: Node's own iterator drops the chunk
  assert.deepEqual(await collect(brokenAfterHel() as AsyncIterable<Buffer>), ['error: other side closed']);
});

test('chunks in order, as they come, then the end', async () => {
  const stream = new Readable({ read() {} });
  const reading = collect(chunksUntilBroken(stream));
  stream.push(Buffer.from('a'));
  await new Promise((resolve) => setImmediate(resolve));
  stream.push(Buffer.from('b'));
  await new Promise((resolve) => setImmediate(resolve));
  stream.push(null);
  assert.deepEqual(await reading, ['a', 'b']);
});

test('a stream destroyed without an error before its end is a premature close', async () => {
  const stream = new Readable({ read() {} });
  const reading = collect(chunksUntilBroken(stream));
  stream.push(Buffer.from('a'));
  await new Promise((resolve) => setImmediate(resolve));
  stream.destroy();
  assert.deepEqual(await reading, ['a', 'error: Premature close']);
});

test('a reader that stops early destroys the stream (the upstream connection is let go)', async () => {
  const stream = new Readable({ read() {} });
  stream.push(Buffer.from('a'));
  for await (const chunk of chunksUntilBroken(stream)) {
    assert.equal(String(chunk), 'a');
    break;
  }
  assert.equal(stream.destroyed, true);
});
