-- Shared by every message script of one queue (prepended by scripts.ts).
-- KEYS, all under the queue's hash tag:
local K_QUEUE, K_READY, K_DELAYED, K_RESERVED, K_EXPIRY = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local K_BODY, K_COUNT, K_RID, K_HEADERS, K_RELEASED, K_DEAD = KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]

local BATCH = 1000

-- Outcome codes shared with message-store.ts.
local OK, NOT_FOUND, TIMED_OUT, RESERVED = 0, 1, 2, 3

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Scores in front of everything on the ready set: first, first + 1, ... first + count - 1.
local function front_scores(count)
  return redis.call('HINCRBY', K_QUEUE, 'front', -count)
end

local function remove_message(id)
  redis.call('ZREM', K_READY, id)
  redis.call('ZREM', K_DELAYED, id)
  redis.call('ZREM', K_RESERVED, id)
  redis.call('ZREM', K_EXPIRY, id)
  redis.call('HDEL', K_BODY, id)
  redis.call('HDEL', K_COUNT, id)
  redis.call('HDEL', K_RID, id)
  redis.call('HDEL', K_HEADERS, id)
  redis.call('SREM', K_RELEASED, id)
end

-- A reserved message whose reservation ran out goes back to the front.
local function return_lapsed(ids)
  if #ids == 0 then return end
  local first = front_scores(#ids)
  for i, id in ipairs(ids) do
    redis.call('ZREM', K_RESERVED, id)
    redis.call('HDEL', K_RID, id)
    redis.call('ZADD', K_READY, first + i - 1, id)
  end
end

-- Realizes what time has done: due delayed messages become available (released ones at the
-- front), lapsed reservations return to the front, expired messages are dropped.
local function maintain(now)
  local due = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', now, 'WITHSCORES', 'LIMIT', 0, BATCH)
  for i = 1, #due, 2 do
    local id = due[i]
    redis.call('ZREM', K_DELAYED, id)
    if redis.call('SREM', K_RELEASED, id) == 1 then
      redis.call('ZADD', K_READY, front_scores(1), id)
    else
      redis.call('ZADD', K_READY, due[i + 1], id)
    end
  end
  return_lapsed(redis.call('ZRANGEBYSCORE', K_RESERVED, '-inf', now, 'LIMIT', 0, BATCH))
  local expired = redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', now, 'LIMIT', 0, BATCH)
  for _, id in ipairs(expired) do remove_message(id) end
end

-- Whether `id` may be acted on with reservation `rid` ('' = none given). A reservation that
-- ran out is returned to the front here, so the caller sees the message back on the queue.
local function check_reservation(id, rid, now)
  if redis.call('HEXISTS', K_BODY, id) == 0 then return NOT_FOUND end
  local expiry = redis.call('ZSCORE', K_EXPIRY, id)
  if expiry and tonumber(expiry) <= now then
    remove_message(id)
    return NOT_FOUND
  end
  local until_ms = redis.call('ZSCORE', K_RESERVED, id)
  local live = until_ms and tonumber(until_ms) > now
  if until_ms and not live then return_lapsed({ id }) end
  if rid == '' then
    if live then return RESERVED end
    return OK
  end
  if live and redis.call('HGET', K_RID, id) == rid then return OK end
  return TIMED_OUT
end

-- The earliest moment something on the queue becomes available by itself, or -1.
local function next_due()
  local candidates = {}
  local delayed = redis.call('ZRANGE', K_DELAYED, 0, 0, 'WITHSCORES')
  if delayed[2] then candidates[#candidates + 1] = tonumber(delayed[2]) end
  local reserved = redis.call('ZRANGE', K_RESERVED, 0, 0, 'WITHSCORES')
  if reserved[2] then candidates[#candidates + 1] = tonumber(reserved[2]) end
  if #candidates == 0 then return -1 end
  return math.min(unpack(candidates))
end
