/**
 * The two counter commands of rate limits, each one atomic store call over every limit of a request:
 *
 * - TAKE judges all the limits at once and, only when every one admits the request, counts it in each `requests`
 *   limit (`tokens` limits are judged, not counted: their tokens are added after the answer). So N concurrent
 *   requests on any number of nodes against a limit of N admit exactly N, and a request refused by one limit
 *   uses up nothing of the others.
 * - ADD adds a finished answer's tokens to its `tokens` limits.
 *
 * A counter is a hash of bucket number -> count under one key (windows.ts); buckets older than the window are
 * deleted as they are met, and the key expires one window after its last count. The Lua reads the Redis server's
 * clock (TIME), so nodes whose clocks differ still agree on the buckets. The TypeScript twin below is the same
 * algorithm over the in-process store; test/limits/rate-limit-scripts.test.ts runs the same cases on both.
 */
import type { KvScript, KvScriptReply, LocalEntries } from '../kv/store.ts';

/** Per limit in ARGV: bucketMs, buckets, limit, cost (1: a `requests` limit; 0: a `tokens` limit, judged only). */
export const TAKE_ARGS_PER_LIMIT = 4;
/** Per limit in the reply after the leading `allowed`: used, waitMs, resetMs. */
export const TAKE_REPLY_PER_LIMIT = 3;

const TAKE_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local reply = {1}
local currents = {}
for i = 1, #KEYS do
  local base = (i - 1) * 4
  local bucketMs = tonumber(ARGV[base + 1])
  local buckets = tonumber(ARGV[base + 2])
  local limit = tonumber(ARGV[base + 3])
  local cost = tonumber(ARGV[base + 4])
  local current = math.floor(now / bucketMs)
  currents[i] = current
  local oldest = current - buckets + 1
  local fields = redis.call('HGETALL', KEYS[i])
  local total = 0
  local first = nil
  local live = {}
  for j = 1, #fields, 2 do
    local bucket = tonumber(fields[j])
    if bucket < oldest then
      redis.call('HDEL', KEYS[i], fields[j])
    else
      local count = tonumber(fields[j + 1])
      total = total + count
      live[#live + 1] = {bucket, count}
      if first == nil or bucket < first then first = bucket end
    end
  end
  local function fits(used)
    if cost > 0 then return used + cost <= limit end
    return used < limit
  end
  local wait = 0
  if not fits(total) then
    -- refused: the buckets in age order tell when enough of them have left the window (sorted only here)
    reply[1] = 0
    table.sort(live, function(a, b) return a[1] < b[1] end)
    local left = total
    wait = buckets * bucketMs
    for _, entry in ipairs(live) do
      left = left - entry[2]
      if fits(left) then
        wait = (entry[1] + buckets) * bucketMs - now
        break
      end
    end
  end
  local reset = buckets * bucketMs
  if first ~= nil then reset = (first + buckets) * bucketMs - now end
  reply[#reply + 1] = total
  reply[#reply + 1] = wait
  reply[#reply + 1] = reset
end
if reply[1] == 1 then
  for i = 1, #KEYS do
    local base = (i - 1) * 4
    local cost = tonumber(ARGV[base + 4])
    if cost > 0 then
      redis.call('HINCRBY', KEYS[i], currents[i], cost)
      redis.call('PEXPIRE', KEYS[i], math.floor(tonumber(ARGV[base + 1]) * (tonumber(ARGV[base + 2]) + 1)))
      reply[(i - 1) * 3 + 2] = reply[(i - 1) * 3 + 2] + cost
    end
  end
end
return reply`;

/** Per limit in ARGV: bucketMs, buckets, amount (a whole number of tokens). */
export const ADD_ARGS_PER_LIMIT = 3;

const ADD_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 1, #KEYS do
  local base = (i - 1) * 3
  local bucketMs = tonumber(ARGV[base + 1])
  local buckets = tonumber(ARGV[base + 2])
  redis.call('HINCRBY', KEYS[i], math.floor(now / bucketMs), ARGV[base + 3])
  redis.call('PEXPIRE', KEYS[i], math.floor(bucketMs * (buckets + 1)))
end
return #KEYS`;

type Buckets = Map<number, number>;

function bucketsAt(entries: LocalEntries, key: string): Buckets {
  const value = entries.get(key);
  return value instanceof Map ? (value as Buckets) : new Map();
}

function takeLocal(entries: LocalEntries, keys: readonly string[], args: readonly string[], now: number): KvScriptReply {
  const reply: number[] = [1];
  const counters: Array<{ buckets: Buckets; current: number }> = [];
  keys.forEach((key, index) => {
    const base = index * TAKE_ARGS_PER_LIMIT;
    const [bucketMs, buckets, limit, cost] = args.slice(base, base + TAKE_ARGS_PER_LIMIT).map(Number) as [number, number, number, number];
    const current = Math.floor(now / bucketMs);
    const oldest = current - buckets + 1;
    const counts = bucketsAt(entries, key);
    let total = 0;
    for (const [bucket, count] of counts) {
      if (bucket < oldest) counts.delete(bucket);
      else total += count;
    }
    counters.push({ buckets: counts, current });
    const fits = (used: number) => (cost > 0 ? used + cost <= limit : used < limit);
    let wait = 0;
    if (!fits(total)) {
      reply[0] = 0;
      let left = total;
      wait = buckets * bucketMs;
      for (const [bucket, count] of [...counts].sort((a, b) => a[0] - b[0])) {
        left -= count;
        if (fits(left)) {
          wait = (bucket + buckets) * bucketMs - now;
          break;
        }
      }
    }
    let first: number | undefined;
    for (const bucket of counts.keys()) if (first === undefined || bucket < first) first = bucket;
    const reset = first !== undefined ? (first + buckets) * bucketMs - now : buckets * bucketMs;
    reply.push(total, Math.trunc(wait), Math.trunc(reset));
  });
  if (reply[0] === 1) {
    keys.forEach((key, index) => {
      const base = index * TAKE_ARGS_PER_LIMIT;
      const cost = Number(args[base + 3]);
      if (cost <= 0) return;
      const { buckets: counts, current } = counters[index]!;
      counts.set(current, (counts.get(current) ?? 0) + cost);
      entries.set(key, counts, Math.floor(Number(args[base]) * (Number(args[base + 1]) + 1)));
      const used = 1 + index * TAKE_REPLY_PER_LIMIT;
      reply[used] = reply[used]! + cost;
    });
  }
  return reply;
}

function addLocal(entries: LocalEntries, keys: readonly string[], args: readonly string[], now: number): KvScriptReply {
  keys.forEach((key, index) => {
    const base = index * ADD_ARGS_PER_LIMIT;
    const [bucketMs, buckets, amount] = args.slice(base, base + ADD_ARGS_PER_LIMIT).map(Number) as [number, number, number];
    const counts = bucketsAt(entries, key);
    const current = Math.floor(now / bucketMs);
    counts.set(current, (counts.get(current) ?? 0) + amount);
    entries.set(key, counts, Math.floor(bucketMs * (buckets + 1)));
  });
  return keys.length;
}

export const TAKE_SCRIPT: KvScript = Object.freeze({ lua: TAKE_LUA, local: takeLocal });
export const ADD_SCRIPT: KvScript = Object.freeze({ lua: ADD_LUA, local: addLocal });
