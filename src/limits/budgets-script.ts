/**
 * The budget counters' atomic commands: Lua scripts for Redis and their in-process twins (src/kv/store.ts
 * KvScript). Each budget window is two Redis keys: a hash (`u` settled usage, `r` reserved by requests in flight,
 * `ta` the threshold an alert was sent for, `ea` the limit an exhaustion was recorded for) and a sorted set of the
 * reservations in flight (member `<reservation id>:<amount>`, score: when it lapses). The twin keeps the same
 * fields in one object under the hash's key.
 *
 * - reserve: for every budget of a request at once, all or nothing: drop lapsed reservations, seed the settled
 *   usage when the counter is new, and refuse when `u >= limit` or `u + r + amount > limit`; otherwise add the
 *   reservation to each. Reply `[0]`, or `[i, u, r]` for the first budget (1-based) that cannot fit.
 * - settle: for every budget, remove the reservation (when it has not lapsed), seed the settled usage when the
 *   counter is new (a charge nothing was reserved for, budgets.ts), and add the actual amount; record the threshold
 *   alert and the exhaustion once each. Reply `[u, alerted, exhausted]` per budget (1 = first time).
 * - reset: `u` to 0 and the alerts cleared; reservations in flight stay.
 * - read: `[u, r, ta, ea]` per counter (`u` -1 when the counter does not exist; -1 for an alert not sent).
 *
 * All amounts are whole units (src/limits/budgets-amounts.ts), exact in Lua's doubles.
 */
import type { KvScript, KvScriptReply, LocalEntries } from '../kv/store.ts';

/** The twin's form of one budget window. */
interface Counter {
  used: number;
  reserved: number;
  /** reservation id -> amount and when it lapses */
  reservations: Map<string, { amount: number; lapsesAt: number }>;
  thresholdAlerted: number;
  exhaustedAt: number;
  /** absolute expiry (ms) of the window; 0: never */
  expiresAt: number;
}

const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/** Lapsed reservations no longer count: their node never settled them (it stopped, or the request outlived them). */
const DROP_LAPSED = `
local function dropLapsed(hash, zset, now)
  local lapsed = redis.call('ZRANGEBYSCORE', zset, '-inf', now)
  if #lapsed == 0 then return end
  local freed = 0
  for _, member in ipairs(lapsed) do freed = freed + tonumber(string.match(member, ':(%d+)$')) end
  redis.call('ZREMRANGEBYSCORE', zset, '-inf', now)
  redis.call('HINCRBY', hash, 'r', -freed)
end`;

const EXPIRE = `
local function expire(hash, zset, at)
  if at > 0 then
    redis.call('PEXPIREAT', hash, at)
    redis.call('PEXPIREAT', zset, at)
  end
end`;

// KEYS: hash, zset per budget. ARGV: reservation id, lapse ms, then per budget: amount, limit, seed (-1: none), expiry
const RESERVE_LUA = `${NOW}${DROP_LAPSED}${EXPIRE}
local id, lapse = ARGV[1], tonumber(ARGV[2])
local budgets = #KEYS / 2
for i = 1, budgets do
  local hash, zset, at = KEYS[2 * i - 1], KEYS[2 * i], 2 + (i - 1) * 4
  local amount, limit, seed = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3])
  if seed >= 0 then redis.call('HSETNX', hash, 'u', seed) end
  expire(hash, zset, tonumber(ARGV[at + 4]))
  dropLapsed(hash, zset, now)
  local used = tonumber(redis.call('HGET', hash, 'u') or '0')
  local reserved = tonumber(redis.call('HGET', hash, 'r') or '0')
  if used >= limit or used + reserved + amount > limit then return { i, used, reserved } end
end
for i = 1, budgets do
  local hash, zset, at = KEYS[2 * i - 1], KEYS[2 * i], 2 + (i - 1) * 4
  local amount = tonumber(ARGV[at + 1])
  if amount > 0 then
    redis.call('HINCRBY', hash, 'r', amount)
    redis.call('ZADD', zset, now + lapse, id .. ':' .. amount)
    expire(hash, zset, tonumber(ARGV[at + 4]))
  end
end
return { 0 }`;

// KEYS: hash, zset per budget. ARGV: reservation id, then per budget: reserved, actual, limit, threshold (-1), expiry,
// seed (-1: none)
const SETTLE_LUA = `${EXPIRE}
local id = ARGV[1]
local reply = {}
for i = 1, #KEYS / 2 do
  local hash, zset, at = KEYS[2 * i - 1], KEYS[2 * i], 1 + (i - 1) * 6
  local reserved, actual = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  local limit, threshold = ARGV[at + 3], ARGV[at + 4]
  local seed = tonumber(ARGV[at + 6])
  if seed >= 0 then redis.call('HSETNX', hash, 'u', seed) end
  if reserved > 0 and redis.call('ZREM', zset, id .. ':' .. reserved) == 1 then redis.call('HINCRBY', hash, 'r', -reserved) end
  local used = redis.call('HINCRBY', hash, 'u', actual)
  local alerted, exhausted = 0, 0
  if tonumber(threshold) >= 0 and used >= tonumber(threshold) and redis.call('HGET', hash, 'ta') ~= threshold then
    redis.call('HSET', hash, 'ta', threshold)
    alerted = 1
  end
  if used >= tonumber(limit) and redis.call('HGET', hash, 'ea') ~= limit then
    redis.call('HSET', hash, 'ea', limit)
    exhausted = 1
  end
  expire(hash, zset, tonumber(ARGV[at + 5]))
  reply[#reply + 1] = used
  reply[#reply + 1] = alerted
  reply[#reply + 1] = exhausted
end
return reply`;

const RESET_LUA = `
redis.call('HSET', KEYS[1], 'u', 0)
redis.call('HDEL', KEYS[1], 'ta', 'ea')
return 1`;

const READ_LUA = `
local reply = {}
for i = 1, #KEYS do
  local fields = redis.call('HMGET', KEYS[i], 'u', 'r', 'ta', 'ea')
  reply[#reply + 1] = tonumber(fields[1] or '-1')
  reply[#reply + 1] = tonumber(fields[2] or '0')
  reply[#reply + 1] = tonumber(fields[3] or '-1')
  reply[#reply + 1] = tonumber(fields[4] or '-1')
end
return reply`;

function counterAt(entries: LocalEntries, key: string, now: number): Counter | undefined {
  const counter = entries.get(key) as Counter | undefined;
  if (counter && counter.expiresAt > 0 && counter.expiresAt <= now) {
    entries.delete(key);
    return undefined;
  }
  return counter;
}

function newCounter(): Counter {
  return { used: 0, reserved: 0, reservations: new Map(), thresholdAlerted: -1, exhaustedAt: -1, expiresAt: 0 };
}

function store(entries: LocalEntries, key: string, counter: Counter, expiresAt: number, now: number): void {
  if (expiresAt > 0) counter.expiresAt = expiresAt;
  entries.set(key, counter, counter.expiresAt > 0 ? Math.max(1, counter.expiresAt - now) : undefined);
}

function dropLapsed(counter: Counter, now: number): void {
  for (const [id, reservation] of counter.reservations) {
    if (reservation.lapsesAt > now) continue;
    counter.reservations.delete(id);
    counter.reserved -= reservation.amount;
  }
}

/** Keys come in pairs (hash, sorted set); the twin keeps everything under the hash's key. */
function hashKeys(keys: readonly string[]): string[] {
  return keys.filter((_, index) => index % 2 === 0);
}

export const RESERVE_SCRIPT: KvScript = {
  lua: RESERVE_LUA,
  local(entries, keys, args, now) {
    const [id, lapse] = [args[0]!, Number(args[1])];
    const hashes = hashKeys(keys);
    const counters = hashes.map((key, index) => {
      const at = 2 + index * 4;
      const seed = Number(args[at + 2]);
      const expiresAt = Number(args[at + 3]);
      // as HSETNX: the seed counts only for a counter that does not exist yet
      const counter = counterAt(entries, key, now) ?? { ...newCounter(), used: Math.max(0, seed) };
      dropLapsed(counter, now);
      store(entries, key, counter, expiresAt, now);
      return { counter, amount: Number(args[at]), limit: Number(args[at + 1]), expiresAt };
    });
    for (const [index, { counter, amount, limit }] of counters.entries()) {
      if (counter.used >= limit || counter.used + counter.reserved + amount > limit) return [index + 1, counter.used, counter.reserved];
    }
    for (const [index, { counter, amount, expiresAt }] of counters.entries()) {
      if (amount > 0) {
        counter.reserved += amount;
        counter.reservations.set(`${id}:${amount}`, { amount, lapsesAt: now + lapse });
      }
      store(entries, hashes[index]!, counter, expiresAt, now);
    }
    return [0];
  },
};

export const SETTLE_SCRIPT: KvScript = {
  lua: SETTLE_LUA,
  local(entries, keys, args, now) {
    const id = args[0]!;
    const reply: KvScriptReply[] = [];
    for (const [index, key] of hashKeys(keys).entries()) {
      const at = 1 + index * 6;
      const [reserved, actual, limit, threshold, expiresAt, seed] = args.slice(at, at + 6).map(Number) as [number, number, number, number, number, number];
      // as HSETNX: the seed counts only for a counter that does not exist yet
      const counter = counterAt(entries, key, now) ?? { ...newCounter(), used: Math.max(0, seed) };
      const member = `${id}:${reserved}`;
      const held = counter.reservations.get(member);
      if (reserved > 0 && held) {
        counter.reservations.delete(member);
        counter.reserved -= held.amount;
      }
      counter.used += actual;
      let alerted = 0;
      let exhausted = 0;
      if (threshold >= 0 && counter.used >= threshold && counter.thresholdAlerted !== threshold) {
        counter.thresholdAlerted = threshold;
        alerted = 1;
      }
      if (counter.used >= limit && counter.exhaustedAt !== limit) {
        counter.exhaustedAt = limit;
        exhausted = 1;
      }
      store(entries, key, counter, expiresAt, now);
      reply.push(counter.used, alerted, exhausted);
    }
    return reply;
  },
};

export const RESET_SCRIPT: KvScript = {
  lua: RESET_LUA,
  local(entries, keys, _args, now) {
    const counter = counterAt(entries, keys[0]!, now) ?? newCounter();
    counter.used = 0;
    counter.thresholdAlerted = -1;
    counter.exhaustedAt = -1;
    store(entries, keys[0]!, counter, 0, now);
    return 1;
  },
};

export const READ_SCRIPT: KvScript = {
  lua: READ_LUA,
  local(entries, keys, _args, now) {
    return keys.flatMap((key) => {
      const counter = counterAt(entries, key, now);
      return counter ? [counter.used, counter.reserved, counter.thresholdAlerted, counter.exhaustedAt] : [-1, 0, -1, -1];
    });
  },
};
