/**
 * A relayed stream's events as objects (src/logging/sse-events.ts): whatever the events hold, the result is what
 * parsing every `data:` line gives; and a stream of plain content deltas is not parsed event by event. Merged (runs
 * of template events as one), the events fold into the same answer as the events parsed whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reassembleChunks } from '../../src/logging/reassemble-stream.ts';
import { decodedChunks, eventReader, sseObjects, sseObjectsOfPieces } from '../../src/logging/sse-events.ts';
import { assembleMessage, TEXT_DELTA } from '../../src/providers/anthropic/inbound/message-events.ts';

const sseObjectsOfChunks = (chunks: readonly Buffer[]) => sseObjectsOfPieces(decodedChunks(chunks));

/** what the events are: every data line parsed whole */
function parsedWhole(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    try {
      out.push(JSON.parse(data));
    } catch {
      // skipped by both
    }
  }
  return out;
}

const TRICKY = ['', 'plain ', 'a "quoted" word', 'back\\slash', 'new\nline', 'tab\t', 'é 日本 🎉', '"content":"x"', 'nul \u0000', 'sep \u2028', '</script>', '\\', '"', 'x'.repeat(5000)];

const chunk = (delta: object, extra: object = {}, finish: string | null = null) =>
  JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });

function stream(events: readonly string[], separator = '\n\n', prefix = 'data: '): string {
  return `${events.map((event) => `${prefix}${event}${separator}`).join('')}${prefix}[DONE]${separator}`;
}

test('plain content deltas, every kind of content: the same objects as parsing each event', () => {
  const events = [chunk({ role: 'assistant', content: '' }), ...TRICKY.map((content) => chunk({ content })), ...[...TRICKY].reverse().map((content) => chunk({ content })), chunk({}, {}, 'stop')];
  for (const [separator, prefix] of [['\n\n', 'data: '], ['\r\n\r\n', 'data:'], ['\n\n', 'data:   ']] as const) {
    const text = stream(events, separator, prefix);
    assert.deepEqual(sseObjects(text), parsedWhole(text), JSON.stringify({ separator, prefix }));
  }
});

test('events the template does not fit are parsed whole: other fields, tool calls, usage, choices, encodings, broken lines', () => {
  const events = [
    chunk({ content: 'first' }),
    chunk({ content: 'then' }, { obfuscation: 'a1' }), // a last field that changes from event to event
    chunk({ content: 'more' }, { obfuscation: 'b22' }),
    chunk({ content: 'and' }, { obfuscation: 'q"uote' }),
    chunk({ content: 'then' }, { obfuscation: 7 }),
    chunk({ content: 'now' }, { obfuscation: 'c', extra: 'd' }),
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}],"obfuscation":"x"y"}',
    chunk({ content: 'x', refusal: null }),
    chunk({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{"content":"no"}' } }] }),
    JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'other id' }, logprobs: null, finish_reason: null }] }),
    JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 1, delta: { content: 'second choice' }, logprobs: null, finish_reason: null }] }),
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"caf\\u00e9"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content" : "spaced"},"logprobs":null,"finish_reason":null}]}',
    // an unescaped quote where the content goes: not one string, not even JSON
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"b"},"logprobs":null,"finish_reason":null}]}',
    // a content that ends in a backslash escapes the closing quote: not the template's shape
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a\\"},"logprobs":null,"finish_reason":null}]}',
    chunk({ content: 'back to plain' }),
    chunk({}, { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }, 'stop'),
    '{"truncated": "by the cap',
  ];
  const text = stream(events);
  assert.deepEqual(sseObjects(text), parsedWhole(text));
});

test('a key that holds the text "content" is never taken for the delta\'s content', () => {
  // the key a"content (its quote escaped) followed by the same value as the delta's: two places, no template
  const twice = '{"a\\"content":"x","choices":[{"index":0,"delta":{"content":"x"}}]}';
  // the same key with the delta's content encoded otherwise (\u00e9): the one place found is the key's, which the
  // probe (another text put there is not read back as the delta's content) refuses
  const elsewhere = '{"a\\"content":"é","choices":[{"index":0,"delta":{"content":"\\u00e9"}}]}';
  // the events after them change what stands in the place found (the key's value): wrongly taken for the delta's
  // content, they would read as content deltas of "y" and "q"
  for (const [first, next] of [[twice, twice.replace('"x","choices"', '"y","choices"')], [elsewhere, elsewhere.replace('"é","choices"', '"q","choices"')]] as const) {
    assert.notEqual(first, next);
    const text = stream([first, next, next]);
    assert.deepEqual(sseObjects(text), parsedWhole(text));
  }
});

for (const obfuscated of [false, true]) {
  test(`a stream of plain content deltas is parsed once for its template, not event by event${obfuscated ? ': with a last field that changes (OpenAI\'s obfuscation)' : ''}`, (t) => {
    const padding = (index: number) => (obfuscated ? { obfuscation: 'pad'.repeat(index % 4) + (index % 3 === 0 ? '\\"x' : '') } : {});
    const events = [chunk({ role: 'assistant', content: '' }), ...Array.from({ length: 100 }, (_, index) => chunk({ content: `word ${index} ${index % 7 === 0 ? '"quoted"' : ''}` }, padding(index))), chunk({}, {}, 'stop')];
    const text = stream(events);
    const expected = parsedWhole(text);
    const parse = t.mock.method(JSON, 'parse');
    const objects = sseObjects(text);
    // whole events parsed (strings with an escape are decoded by JSON.parse too, alone)
    const wholeEvents = parse.mock.calls.filter((call) => String(call.arguments[0]).startsWith('{')).length;
    parse.mock.restore();
    assert.deepEqual(objects, expected);
    // the role event, the first content event, the probe of its template, the stop event
    assert.equal(wholeEvents, 4);
  });
}

test('read from the bytes chunk by chunk, cut anywhere (inside a character, a line, a CRLF): the same objects', () => {
  const events = [chunk({ role: 'assistant', content: '' }), ...TRICKY.map((content) => chunk({ content })), chunk({ content: 'last' }, { obfuscation: 'z' }), chunk({}, {}, 'stop')];
  for (const separator of ['\n\n', '\r\n\r\n']) {
    const text = stream(events, separator);
    const bytes = Buffer.from(text);
    const expected = parsedWhole(text);
    for (const size of [1, 2, 3, 5, 7, 64, 1000, bytes.length]) {
      const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size));
      assert.deepEqual(sseObjectsOfChunks(chunks), expected, `chunks of ${size} bytes`);
    }
  }
  assert.deepEqual(sseObjectsOfChunks([]), []);
  // no line end at all: the last line is read at the end
  assert.deepEqual(sseObjectsOfChunks([Buffer.from('data: {"a":'), Buffer.from('1}')]), [{ a: 1 }]);
});

test('merged: runs of events that fit the template come out as one event each, and fold into the same answer', () => {
  const plain = Array.from({ length: 30 }, (_, index) => chunk({ content: `w${index} ` }));
  const obfuscated = Array.from({ length: 30 }, (_, index) => chunk({ content: `o${index} ` }, { obfuscation: 'p'.repeat(index % 5) }));
  const streams: Array<[string, string[]]> = [
    ['every kind of content', [chunk({ role: 'assistant', content: '' }), ...TRICKY.map((content) => chunk({ content })), chunk({}, {}, 'stop')]],
    ['plain deltas', [chunk({ role: 'assistant', content: '' }), ...plain, chunk({}, { usage: { prompt_tokens: 1, completion_tokens: 30, total_tokens: 31 } }, 'stop')]],
    ['a last field that changes', [chunk({ role: 'assistant', content: '' }), ...obfuscated, chunk({}, {}, 'stop')]],
    // runs broken by other events: a tool call, another choice, an escaped content, a broken line, a changed field
    [
      'runs broken by other events',
      [
        chunk({ content: 'a' }),
        ...plain.slice(0, 5),
        chunk({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{"x"' } }] }),
        ...plain.slice(5, 10),
        JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 1, delta: { content: 'second choice' }, logprobs: null, finish_reason: null }] }),
        ...plain.slice(10, 12),
        '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"caf\\u00e9"},"logprobs":null,"finish_reason":null}]}',
        chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
        '{"broken',
        ...plain.slice(12, 20),
        chunk({ content: 'x', refusal: null }),
        ...plain.slice(20),
        chunk({}, {}, 'length'),
      ],
    ],
    ['one event', [chunk({ content: 'only' })]],
  ];
  for (const [name, events] of streams) {
    const text = stream(events);
    const whole = parsedWhole(text);
    const bytes = Buffer.from(text);
    for (const size of [7, 64, bytes.length]) {
      const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size));
      const merged = sseObjectsOfPieces(decodedChunks(chunks), { merged: true });
      assert.deepEqual(reassembleChunks(merged), reassembleChunks(whole), `${name}, chunks of ${size} bytes`);
      // not merged: every event, as before
      assert.deepEqual(sseObjectsOfPieces(decodedChunks(chunks)), whole, `${name}, chunks of ${size} bytes, not merged`);
    }
  }
  // thirty plain deltas after the role event: the role event, the first delta (the template, parsed), the other 29
  // as one event holding their contents, the stop event
  const merged = sseObjectsOfPieces([stream([chunk({ role: 'assistant', content: '' }), ...plain, chunk({}, {}, 'stop')])], { merged: true });
  assert.equal(merged.length, 4);
  assert.equal((merged[2] as { choices: Array<{ delta: { content: string } }> }).choices[0]!.delta.content, plain.slice(1).map((_, index) => `w${index + 1} `).join(''));
  // a run's event carries the last field of the run's last event
  const padded = sseObjectsOfPieces([stream(obfuscated)], { merged: true });
  assert.equal(padded.length, 2);
  assert.equal((padded[1] as { obfuscation: string }).obfuscation, 'p'.repeat(29 % 5));
});

test('a long run read a line at a time by the template\'s expression: the same objects, whatever the lines hold', (t) => {
  // past the first sixteen events that fit, lines are matched whole (LINE_PATTERN_AFTER in sse-events.ts)
  const warm = Array.from({ length: 20 }, (_, index) => `data: ${chunk({ content: `w${index} ` })}\n\n`).join('');
  const lines = [
    ...TRICKY.map((content) => `data: ${chunk({ content })}\n\n`),
    `data:\t${chunk({ content: 'tab before' })}\n`,
    `data:${chunk({ content: 'no space' })}\t \r\n\r\n\n`,
    `data: ${chunk({ content: 'nbsp after' })}\u00a0\n`,
    `data: ${chunk({ content: 'unicode space before' }).replace(/^/, '\u2003')}\n`,
    // escapes JSON does not have, an escaped quote, a content ending in an escaped backslash, a raw control character
    `data: ${chunk({ content: 'PLACE' }).replace('PLACE', 'bad \\x escape')}\n`,
    `data: ${chunk({ content: 'PLACE' }).replace('PLACE', 'bad \\u00zz escape')}\n`,
    `data: ${chunk({ content: 'say "hi"' })}\n`,
    `data: ${chunk({ content: 'ends in \\' })}\n`,
    `data: ${chunk({ content: 'PLACE' }).replace('PLACE', 'raw \t tab')}\n`,
    `data: ${chunk({ content: 'PLACE' }).replace('PLACE', 'unescaped " quote')}\n`,
    // the same event twice on one line, a comment, an event cut short, a field after the data
    `data: ${chunk({ content: 'twice' })}${chunk({ content: 'twice' })}\n`,
    ': a comment\n',
    `data: ${chunk({ content: 'cut' }).slice(0, -5)}\n`,
    `data: ${chunk({ content: 'x' }, { extra: 1 })}\n`,
    'event: message\n',
    `data: ${chunk({ content: 'after the others' })}\n\n`,
    `data: ${chunk({ content: 'no line end at all' })}`,
  ];
  const text = warm + lines.join('');
  const whole = parsedWhole(text);
  const exec = t.mock.method(RegExp.prototype, 'exec');
  assert.deepEqual(sseObjects(text), whole);
  // the lines after the first sixteen were tried against the template's expression (a sticky one), most of them matched
  const matched = exec.mock.calls.filter((call) => (call.this as RegExp).sticky && call.result !== null).length;
  exec.mock.restore();
  assert.ok(matched >= 4 + TRICKY.length, `${matched} lines matched by the expression`);
  const bytes = Buffer.from(text);
  for (const size of [1, 3, 64, 1000, bytes.length]) {
    const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size));
    assert.deepEqual(sseObjectsOfPieces(decodedChunks(chunks)), whole, `chunks of ${size} bytes`);
    assert.deepEqual(reassembleChunks(sseObjectsOfPieces(decodedChunks(chunks), { merged: true })), reassembleChunks(whole), `merged, chunks of ${size} bytes`);
  }
  // with a last field that changes, and the same tricky lines after the run
  const padded = Array.from({ length: 20 }, (_, index) => `data: ${chunk({ content: `p${index} ` }, { obfuscation: 'z'.repeat(index % 6) })}\n\n`).join('');
  const trailing = [
    ...TRICKY.map((content, index) => `data: ${chunk({ content }, { obfuscation: TRICKY[(index + 3) % TRICKY.length]! })}\n\n`),
    `data: ${chunk({ content: 'PLACE' }, { obfuscation: 'z' }).replace('PLACE', 'bad \\x escape')}\n`,
    `data: ${chunk({ content: 'c' }, { obfuscation: 'PLACE' }).replace('PLACE', 'bad \\x escape')}\n`,
    `data: ${chunk({ content: 'c' }, { obfuscation: 'PLACE' }).replace('PLACE', 'q"uote')}\n`,
    `data: ${chunk({ content: 'c' }, { obfuscation: 7 })}\n`,
    `data: ${chunk({ content: '","obfuscation":"' }, { obfuscation: '","obfuscation":"' })}\n`,
    `data: ${chunk({ content: 'last' }, { obfuscation: 'end' })}\n`,
  ];
  const paddedText = padded + trailing.join('');
  assert.deepEqual(sseObjects(paddedText), parsedWhole(paddedText));
});

test('a Messages stream read an event at a time: text deltas from a template, the same events, the same Message', (t) => {
  const typed = (type: string, data: object) => JSON.stringify({ type, ...data });
  const text = (index: number, piece: string) => typed('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
  const events = [
    typed('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } }),
    typed('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    typed('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
    typed('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
    typed('content_block_stop', { index: 0 }),
    typed('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: 40 }, (_, index) => text(1, `w${index} `)),
    ...TRICKY.map((piece) => text(1, piece)),
    // more in the delta (not the template's shape), an escape JSON.stringify does not write (decoded alone), a ping
    JSON.stringify({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'extra', note: 1 } }),
    '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"caf\\u00e9"}}',
    typed('ping', {}),
    text(1, 'after the ping'),
    typed('content_block_stop', { index: 1 }),
    typed('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }),
    typed('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"a":' } }),
    typed('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '1}' } }),
    typed('content_block_stop', { index: 2 }),
    // another text block: its deltas do not fit the first block's template, and are parsed
    typed('content_block_start', { index: 3, content_block: { type: 'text', text: '' } }),
    text(3, 'another block'),
    text(3, ' of text'),
    typed('content_block_stop', { index: 3 }),
    typed('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 60 } }),
    typed('message_stop', {}),
  ];
  const parsed = events.map((data) => JSON.parse(data) as unknown);
  const message = assembleMessage(parsed);
  assert.ok(message);
  const plain = eventReader(TEXT_DELTA);
  for (const data of events) plain.read(data);
  assert.deepEqual(plain.events(), parsed);
  const parse = t.mock.method(JSON, 'parse');
  const merged = eventReader(TEXT_DELTA, { merged: true });
  for (const data of events) merged.read(` ${data}\r`);
  const kept = merged.events();
  const deltasParsed = parse.mock.calls.filter((call) => String(call.arguments[0]).startsWith('{"type":"content_block_delta","index":1')).length;
  parse.mock.restore();
  assert.deepEqual(assembleMessage(kept), message);
  // the first text delta (the template) and its probe, and the delta of another shape; the other 54 from the template
  assert.equal(deltasParsed, 3);
  assert.ok(kept.length < parsed.length - 50, `${kept.length} events kept for ${parsed.length}`);
});

test('seeded random streams, long enough for the line expression: the same objects and the same folded answer', () => {
  let seed = 20261207;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const pieces = ['a', ' ', 'é', '日本', '🎉', '"', '\\', '\n', '\r', '\t', '\u0000', '\u001f', '\u2028', '\u00a0', '</', 'data: ', '"content":"', '\\u00e9', '}', '{'];
  const contentOf = () => Array.from({ length: Math.floor(random() * 6) }, () => pick(pieces)).join('');
  for (let round = 0; round < 60; round += 1) {
    const obfuscated = random() < 0.5;
    const lines: string[] = [];
    for (let index = 0; index < 40 + Math.floor(random() * 40); index += 1) {
      const roll = random();
      const extra = obfuscated ? { obfuscation: contentOf() } : {};
      let event = chunk({ content: contentOf() }, extra);
      // now and then: an event of another kind, written by hand, cut short or with its content's escapes spoilt
      if (roll < 0.05) event = chunk({ tool_calls: [{ index: 0, function: { arguments: contentOf() } }] }, extra);
      else if (roll < 0.08) event = event.slice(0, Math.floor(random() * event.length));
      else if (roll < 0.11) event = event.replace('"content":"', `"content":"${pick(['\\x', '\\u12', '"', '\\'])}`);
      const separator = pick(['\n\n', '\r\n\r\n', '\n', '\n\n\n']);
      lines.push(`${pick(['data: ', 'data:', 'data:\t'])}${event}${pick(['', ' ', '\t', '\r'])}${separator}`);
    }
    const text = lines.join('');
    const whole = parsedWhole(text);
    assert.deepEqual(sseObjects(text), whole, `round ${round}`);
    const bytes = Buffer.from(text);
    const size = 1 + Math.floor(random() * 400);
    const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size));
    assert.deepEqual(sseObjectsOfPieces(decodedChunks(chunks)), whole, `round ${round}, chunks of ${size}`);
    assert.deepEqual(reassembleChunks(sseObjectsOfPieces(decodedChunks(chunks), { merged: true })), reassembleChunks(whole), `round ${round}, merged`);
  }
});
