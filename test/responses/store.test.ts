/**
 * The store of responses the gateway produced, over the in-process store and (when TEST_REDIS_URL is set) Redis:
 * kept per organisation and id, gone after delete, and gone once the TTL passes.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { createMemoryStore } from '../../src/kv/memory-store.ts';
import { createRedisStore } from '../../src/kv/redis-store.ts';
import type { KvStore } from '../../src/kv/store.ts';
import { responseOf } from '../../src/responses/from-chat.ts';
import { createResponsesStore } from '../../src/responses/store.ts';

const backends: Array<{ name: string; create(): KvStore }> = [{ name: 'memory', create: () => createMemoryStore() }];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) backends.push({ name: 'redis', create: () => createRedisStore(redisUrl, { prefix: `test:${randomUUID()}:` }) });

const opened: KvStore[] = [];
after(async () => {
  for (const kv of opened) await kv.close();
});

const stored = (id: string) => ({
  response: responseOf({ model: 'm', input: 'x' }, { id, createdAt: 1, model: 'm', output: [], usage: null, finishReason: 'stop' }),
  input_items: [{ id: 'msg_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x' }] }],
});

for (const backend of backends) {
  describe(`responses store (${backend.name})`, () => {
    test('per organisation: another organisation does not see it; delete removes it once', async () => {
      const kv = backend.create();
      opened.push(kv);
      const store = createResponsesStore(kv);
      await store.put('org-a', stored('resp_1'));
      assert.deepEqual(await store.get('org-a', 'resp_1'), stored('resp_1'));
      assert.equal(await store.get('org-b', 'resp_1'), undefined);
      assert.equal(await store.delete('org-b', 'resp_1'), false);
      assert.equal(await store.delete('org-a', 'resp_1'), true);
      assert.equal(await store.get('org-a', 'resp_1'), undefined);
      assert.equal(await store.delete('org-a', 'resp_1'), false);
    });

    test('gone once the TTL passes', async () => {
      const kv = backend.create();
      opened.push(kv);
      const store = createResponsesStore(kv, 50);
      await store.put('org-a', stored('resp_2'));
      assert.ok(await store.get('org-a', 'resp_2'));
      await sleep(120);
      assert.equal(await store.get('org-a', 'resp_2'), undefined);
    });
  });
}
