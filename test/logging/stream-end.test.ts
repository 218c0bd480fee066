/** A relayed Responses stream's last event, kept from the read where it starts (src/logging/stream-end.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FINAL_EVENT_KEEP_BYTES, FinalEventKeeper, responseAtEnd } from '../../src/logging/stream-end.ts';

const event = (type: string, fields: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

function stream(text: string): Buffer {
  const response = { id: 'resp_1', object: 'response', status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text }] }] };
  // a delta whose text holds the final event's name: escaped inside a JSON string, so it is not taken for it
  return Buffer.from(
    event('response.created', { response: { ...response, status: 'in_progress', output: [] } }) +
      event('response.output_text.delta', { delta: '"type":"response.completed" is only text here' }) +
      event('response.output_text.delta', { delta: text }) +
      event('response.completed', { response }),
  );
}

function kept(bytes: Buffer, read: number): FinalEventKeeper {
  const keeper = new FinalEventKeeper();
  for (let at = 0; at < bytes.length; at += read) keeper.push(bytes.subarray(at, at + read));
  return keeper;
}

const tailOf = (bytes: Buffer, keeper: FinalEventKeeper) => ({ text: '', previous: undefined, last: bytes.subarray(bytes.length - 10), final: keeper.reads() });

test('the last event is read whole from the reads kept, however many reads it spans', () => {
  const text = 'word '.repeat(60_000); // 300 KB: the last event spans many reads of 16 KB
  const bytes = stream(text);
  for (const read of [1_000, 16_384, 65_536, bytes.length]) {
    const keeper = kept(bytes, read);
    const reads = keeper.reads();
    assert.ok(reads && reads.length > 0, `reads of ${read}`);
    // only from where the event starts: the deltas before it are not kept
    assert.ok(reads.reduce((sum, buffer) => sum + buffer.length, 0) < text.length + 2 * read + 1_000, `reads of ${read}`);
    const response = responseAtEnd(tailOf(bytes, keeper)) as { output: Array<{ content: Array<{ text: string }> }> };
    assert.equal(response.output[0]!.content[0]!.text, text, `reads of ${read}`);
  }
});

test('past the bound nothing is kept, and the tail serves as before', () => {
  const bytes = stream('x'.repeat(FINAL_EVENT_KEEP_BYTES + 10));
  const keeper = kept(bytes, 65_536);
  assert.equal(keeper.reads(), undefined);
  assert.equal(responseAtEnd(tailOf(bytes, keeper)), undefined);
  // a stream without the event keeps nothing either
  assert.equal(kept(Buffer.from(event('response.created', { response: {} })), 8).reads(), undefined);
});
