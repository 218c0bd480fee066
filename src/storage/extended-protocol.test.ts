import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bindExecuteMessage, parseMessage } from './extended-protocol.ts';

// expected bytes written out by hand from PostgreSQL's message formats (protocol-message-formats): a type byte, an
// int32 length that counts itself but not the type, then the fields
const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

test('Parse: the name, the SQL, the parameter types, then Sync', () => {
  assert.deepEqual(
    parseMessage('s1', 'select $1', [114]),
    hex(`50 00000017 7331 00 73656c65637420243100 0001 00000072
         53 00000004`),
  );
});

test('Bind, Execute and Sync: binary parameters, a NULL, the unnamed portal', () => {
  assert.deepEqual(
    bindExecuteMessage('s1', [Buffer.from('[1]'), 'é', null]),
    hex(`42 00000021 00 733100 0001 0001 0003 00000003 5b315d 00000002 c3a9 ffffffff 0000
         45 00000009 00 00000000
         53 00000004`),
  );
});
