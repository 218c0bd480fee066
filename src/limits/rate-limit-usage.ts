/**
 * Reading rate-limit counters without touching them: what the admin API shows as a policy's current consumption.
 * The sum is the one TAKE judges against (rate-limit-scripts.ts): the buckets of the rolling window that ends in
 * the store's current bucket. READ deletes nothing and sets no expiry, so a read never changes a count; the Lua
 * reads the Redis server's clock, as TAKE does, so the window is the one the next request will be judged in.
 */
import type { KvScript, KvScriptReply, KvStore, LocalEntries } from '../kv/store.ts';
import type { RateWindow } from './windows.ts';

/** ARGV: bucketMs, buckets (one window for every key). Reply: the current bucket's number, then one sum per key. */
const READ_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local bucketMs = tonumber(ARGV[1])
local current = math.floor(now / bucketMs)
local oldest = current - tonumber(ARGV[2]) + 1
local reply = {current}
for i = 1, #KEYS do
  local fields = redis.call('HGETALL', KEYS[i])
  local total = 0
  for j = 1, #fields, 2 do
    if tonumber(fields[j]) >= oldest then total = total + tonumber(fields[j + 1]) end
  end
  reply[#reply + 1] = total
end
return reply`;

function readLocal(entries: LocalEntries, keys: readonly string[], args: readonly string[], now: number): KvScriptReply {
  const [bucketMs, buckets] = args.map(Number) as [number, number];
  const current = Math.floor(now / bucketMs);
  const oldest = current - buckets + 1;
  const reply: number[] = [current];
  for (const key of keys) {
    const counts = entries.get(key);
    let total = 0;
    if (counts instanceof Map) for (const [bucket, count] of counts as Map<number, number>) if (bucket >= oldest) total += count;
    reply.push(total);
  }
  return reply;
}

export const RATE_READ_SCRIPT: KvScript = Object.freeze({ lua: READ_LUA, local: readLocal });

export interface CounterReading {
  /** when the rolling window the counts cover began (epoch ms, the store's clock) */
  windowStart: number;
  /** per key, in order: requests (or tokens) counted in the window */
  counts: number[];
}

/** The live counts of counters that share one window. */
export async function readRateCounters(kv: Pick<KvStore, 'runScript'>, window: RateWindow, keys: readonly string[]): Promise<CounterReading> {
  const reply = await kv.runScript(RATE_READ_SCRIPT, keys, [window.bucketMs, window.buckets]);
  if (!Array.isArray(reply) || reply.length !== keys.length + 1) throw new Error(`unexpected reply from the rate-limit read script: ${JSON.stringify(reply)}`);
  const current = Number(reply[0]);
  return { windowStart: (current - window.buckets + 1) * window.bucketMs, counts: reply.slice(1).map(Number) };
}
