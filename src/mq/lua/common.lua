--@keys queue ready delayed reserved expiry body count rid headers released dead timeout
-- Shared by every message script of one queue (each includes it first).
-- KEYS, all under the queue's hash tag:
local K_QUEUE, K_READY, K_DELAYED, K_RESERVED, K_EXPIRY = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local K_BODY, K_COUNT, K_RID, K_HEADERS, K_RELEASED, K_DEAD = KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]
-- Per-message reservation timeouts (s), only for messages posted with one (version 1).
local K_TIMEOUT = KEYS[12]
-- How many keys a queue has (scripts.ts QUEUE_KEY_PARTS); scripts that take more keys find them after these.
local QUEUE_KEY_COUNT = 12

-- Most items handled by one maintenance pass, and per variadic command (Lua's unpack limit).
local BATCH = 1000
local CHUNK = 500

-- Outcome codes shared with scripts.ts.
local OK, NOT_FOUND, TIMED_OUT, RESERVED, NOT_RESERVED = 0, 1, 2, 3, 4

-- A reservation id standing for whatever reservation the message has (version 1 has none).
local ANY_RESERVATION = '*'

--@include ../../core/lua/clock.lua

-- The queue record's `fields`, after its created_at: every queue record has created_at (set by
-- both post-messages and save-queue), so a false first value means the queue does not exist.
local function queue_record(...)
  return redis.call('HMGET', K_QUEUE, 'created_at', ...)
end

-- Calls redis command `command` on `key` with `args` (a flat list), in chunks of `width` items;
-- `option` (e.g. 'NX'), when given, goes before each chunk.
local function variadic(command, key, args, width, option)
  width = width or 1
  local step = CHUNK * width
  for first = 1, #args, step do
    if option then
      redis.call(command, key, option, unpack(args, first, math.min(first + step - 1, #args)))
    else
      redis.call(command, key, unpack(args, first, math.min(first + step - 1, #args)))
    end
  end
end

-- Plain messages: posted without a delay or an expiration of their own, with the queue's
-- message_expiration when it equals the record's field plain_expiration_ms. They have no entry on
-- the expiry set (writing one per message was a fifth of a post's cost in Redis):
-- - on the ready set, a plain message's score is the time it was posted and its expiry that
--   score plus plain_expiration_ms;
-- - reserved, its rid field holds its expiry after its reservation id (rid_expiry_suffix);
-- - released or timed out, it gets an entry (index_reserved_plain) and a score at or below 0.
-- So a ready score above 0 without an expiry entry is a plain message's. Every other message has
-- an entry from the start. The field changes only while the ready set is empty (post-messages),
-- when no plain message depends on it.
-- This layout is the storage feature flag plain_messages (src/core/features/feature-registry.ts):
-- a script that writes messages is told whether it is enabled (plain_allowed). Until it is, every
-- message gets an expiry entry, a reserved one's rid field is its reservation id alone and the
-- record gets no plain_expiration_ms, which is what releases before it read; both are read always.
local PLAIN_EXPIRATION = 'plain_expiration_ms'
local RID_EXPIRY = '@'

-- Whether a script's argument `flag` enables the plain-message layout ('1').
local function plain_allowed(flag)
  return flag == '1'
end

local function plain_expiration()
  return tonumber(redis.call('HGET', K_QUEUE, PLAIN_EXPIRATION) or '')
end

-- What follows the reservation id in a reserved plain message's rid field.
local function rid_expiry_suffix(expiry)
  return RID_EXPIRY .. string.format('%.0f', expiry)
end

-- The reservation id in a rid field's `value` and, for a reserved plain message, its expiry.
local function rid_parts(value)
  if not value then return nil, nil end
  local at = string.find(value, RID_EXPIRY, 1, true)
  if not at then return value, nil end
  return string.sub(value, 1, at - 1), tonumber(string.sub(value, at + 1))
end

-- The reserved plain messages among `ids`, about to leave the reserved set for the ready or
-- delayed set, get their expiry entry (from their rid field).
local function index_reserved_plain(ids)
  if #ids == 0 then return end
  local values = redis.call('HMGET', K_RID, unpack(ids))
  local entries = {}
  for i, id in ipairs(ids) do
    local _, expiry = rid_parts(values[i])
    if expiry then
      entries[#entries + 1] = expiry
      entries[#entries + 1] = id
    end
  end
  if #entries > 0 then variadic('ZADD', K_EXPIRY, entries, 2, 'NX') end
end

-- The expiry (ms) of each of `ids`, nil for a message that has no record: its expiry entry, else
-- a plain message's (its ready score, `ready_scores` when given, plus `plain_ms`; or its rid field's).
local function expiries(ids, plain_ms, ready_scores)
  local found = redis.call('ZMSCORE', K_EXPIRY, unpack(ids))
  local out, missing = {}, false
  for i = 1, #ids do
    out[i] = tonumber(found[i] or '')
    if not out[i] then missing = true end
  end
  if not missing then return out end
  ready_scores = ready_scores or redis.call('ZMSCORE', K_READY, unpack(ids))
  local rids = redis.call('HMGET', K_RID, unpack(ids))
  for i = 1, #ids do
    local score = tonumber(ready_scores[i] or '')
    if out[i] then
      -- An entry of its own.
    elseif score and score > 0 and plain_ms then
      out[i] = score + plain_ms
    else
      local _, expiry = rid_parts(rids[i])
      out[i] = expiry
    end
  end
  return out
end

-- Ready-set scores at or below which plain messages have expired (the range's bounds).
local function plain_expired_range(now, plain_ms)
  return '(0', now - plain_ms
end

-- Scores in front of everything on the ready set: first, first + 1, ... first + count - 1.
local function front_scores(count)
  return redis.call('HINCRBY', K_QUEUE, 'front', -count)
end

-- Of `keys`, those that exist: hashes only some queues have (push headers, version 1 timeouts)
-- are skipped when absent instead of being sent every id of a batch.
local function existing(keys)
  local found = {}
  for _, key in ipairs(keys) do
    if redis.call('EXISTS', key) == 1 then found[#found + 1] = key end
  end
  return found
end

-- Redis keeps a hash of up to hash-max-listpack-entries fields (512 by default) as a listpack,
-- where finding a field is a scan of the whole list. The reservation hashes (count, rid) of a
-- busy queue hover at a few hundred fields and are emptied (deleted) again and again, so every
-- reserve and delete would scan them once per message. A value longer than
-- hash-max-listpack-value (64 by default) makes a hash a hash table for as long as the key lives:
-- this field, which no message id can name and which stays when the messages go, keeps them so.
local HASH_TABLE_FIELD = '~'
local HASH_TABLE_VALUE = string.rep('~', 128)
local function keep_hash_table(key)
  redis.call('HSETNX', key, HASH_TABLE_FIELD, HASH_TABLE_VALUE)
end

-- Bodies of at most this many bytes on average are read (one HMGET) to count their bytes; bigger
-- ones are measured one HSTRLEN each, so that big bodies are not copied into Lua.
local SMALL_BODY_BYTES = 1024

-- Bytes of the bodies of `ids`.
local function body_bytes(ids)
  local bytes = 0
  if #ids > 1 then
    local stored = redis.call('HLEN', K_BODY)
    if stored > 0 and tonumber(redis.call('HGET', K_QUEUE, 'bytes') or '0') <= SMALL_BODY_BYTES * stored then
      for first = 1, #ids, CHUNK do
        local bodies = redis.call('HMGET', K_BODY, unpack(ids, first, math.min(first + CHUNK - 1, #ids)))
        for _, body in ipairs(bodies) do
          if body then bytes = bytes + #body end
        end
      end
      return bytes
    end
  end
  for _, id in ipairs(ids) do bytes = bytes + redis.call('HSTRLEN', K_BODY, id) end
  return bytes
end

-- Removes a message's record (expiry entry, body, count, headers, timeout) and, for each place
-- given in `places`, its entry there (ready, delayed, reserved, rid, released).
-- The queue record's `bytes` counts its messages' bodies (the project's queue_bytes quota);
-- `freed`: their bytes when the caller knows them.
local function remove_records(ids, places, freed)
  if #ids == 0 then return end
  freed = freed or body_bytes(ids)
  if freed > 0 and redis.call('HINCRBY', K_QUEUE, 'bytes', -freed) < 0 then redis.call('HSET', K_QUEUE, 'bytes', 0) end
  for _, key in ipairs(existing({ K_EXPIRY })) do variadic('ZREM', key, ids) end
  variadic('HDEL', K_BODY, ids)
  for _, key in ipairs(existing({ K_COUNT, K_HEADERS, K_TIMEOUT })) do variadic('HDEL', key, ids) end
  for _, place in ipairs(places) do
    if place == K_RELEASED then
      variadic('SREM', place, ids)
    elseif place == K_RID then
      variadic('HDEL', place, ids)
    else
      variadic('ZREM', place, ids)
    end
  end
end

local function remove_messages(ids)
  remove_records(ids, { K_READY, K_DELAYED, K_RESERVED, K_RID, K_RELEASED })
end

-- Messages whose reservation is live sit only in the reserved set.
local function remove_reserved(ids)
  remove_records(ids, { K_RESERVED, K_RID })
end

-- Puts ids at the front of the ready set, keeping their order.
local function to_front(ids)
  if #ids == 0 then return end
  local first = front_scores(#ids)
  local scored = {}
  for i, id in ipairs(ids) do
    scored[#scored + 1] = first + i - 1
    scored[#scored + 1] = id
  end
  variadic('ZADD', K_READY, scored, 2)
end

-- Reserved messages whose reservation ran out go back to the front.
local function return_lapsed(ids)
  if #ids == 0 then return end
  index_reserved_plain(ids)
  variadic('ZREM', K_RESERVED, ids)
  variadic('HDEL', K_RID, ids)
  to_front(ids)
end

-- Plain messages on the ready set that expired, at most `limit`: the ready set's oldest plain
-- scores, less the messages there with an expiry entry (an expiration of their own: they are
-- dropped by their entry).
local function expired_plain(now, limit)
  local plain_ms = plain_expiration()
  if not plain_ms or limit <= 0 then return {} end
  local low, high = plain_expired_range(now, plain_ms)
  local candidates = redis.call('ZRANGEBYSCORE', K_READY, low, high, 'LIMIT', 0, limit)
  if #candidates == 0 then return candidates end
  local entries = redis.call('ZMSCORE', K_EXPIRY, unpack(candidates))
  local expired = {}
  for i, id in ipairs(candidates) do
    if not entries[i] then expired[#expired + 1] = id end
  end
  return expired
end

-- Realizes what time has done: due delayed messages become available (released ones at the
-- front), lapsed reservations return to the front, expired messages are dropped. Returns how
-- many messages expired (BATCH: there may be more).
local function maintain(now)
  local due = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', now, 'WITHSCORES', 'LIMIT', 0, BATCH)
  if #due > 0 then
    local ids, in_order, released = {}, {}, {}
    for i = 1, #due, 2 do ids[#ids + 1] = due[i] end
    local flags = redis.call('SMISMEMBER', K_RELEASED, unpack(ids))
    for i, id in ipairs(ids) do
      if flags[i] == 1 then
        released[#released + 1] = id
      else
        in_order[#in_order + 1] = due[2 * i]
        in_order[#in_order + 1] = id
      end
    end
    variadic('ZREM', K_DELAYED, ids)
    if #released > 0 then variadic('SREM', K_RELEASED, released) end
    to_front(released)
    if #in_order > 0 then variadic('ZADD', K_READY, in_order, 2) end
  end
  return_lapsed(redis.call('ZRANGEBYSCORE', K_RESERVED, '-inf', now, 'LIMIT', 0, BATCH))
  local expired = redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', now, 'LIMIT', 0, BATCH)
  remove_messages(expired)
  local plain = expired_plain(now, BATCH - #expired)
  remove_messages(plain)
  return #expired + #plain
end

-- Whether each of `count` messages is on the reserved set (`until_ms`, their scores there), none
-- of them plain and expired (`own_expiry`, from their rid fields), while no other message of the
-- queue has expired: then each one exists (a reserved message always has its record) and is
-- unexpired, without reading their expiry.
local function reserved_and_unexpired(until_ms, own_expiry, count, now, plain_ms)
  for i = 1, count do
    if not until_ms[i] or (own_expiry[i] and own_expiry[i] <= now) then return false end
  end
  if #redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', now, 'LIMIT', 0, 1) > 0 then return false end
  if not plain_ms then return true end
  local low, high = plain_expired_range(now, plain_ms)
  return #redis.call('ZRANGEBYSCORE', K_READY, low, high, 'LIMIT', 0, 1) == 0
end

-- For each ids[i] with reservation rids[i] ('' = none given): may it be acted on? A reservation
-- that ran out is returned to the front here (the message is back on the queue); expired
-- messages are dropped. Returns the outcome per id, and the end of each one's reservation (nil
-- when not reserved; lapsed ones are in the past).
local function check_reservations(ids, rids, now)
  local until_ms = redis.call('ZMSCORE', K_RESERVED, unpack(ids))
  local fields = redis.call('HMGET', K_RID, unpack(ids))
  local current, own_expiry = {}, {}
  for i = 1, #ids do current[i], own_expiry[i] = rid_parts(fields[i]) end
  local plain_ms = plain_expiration()
  local expiry = not reserved_and_unexpired(until_ms, own_expiry, #ids, now, plain_ms) and expiries(ids, plain_ms)
  local outcomes, expired, lapsed = {}, {}, {}
  for i, id in ipairs(ids) do
    local live = until_ms[i] and tonumber(until_ms[i]) > now
    if expiry and not expiry[i] then
      outcomes[i] = NOT_FOUND
    elseif expiry and expiry[i] <= now then
      outcomes[i] = NOT_FOUND
      expired[#expired + 1] = id
    else
      if until_ms[i] and not live then lapsed[#lapsed + 1] = id end
      if rids[i] == ANY_RESERVATION then
        outcomes[i] = OK
      elseif rids[i] == '' then
        outcomes[i] = live and RESERVED or OK
      else
        outcomes[i] = (live and current[i] == rids[i]) and OK or TIMED_OUT
      end
    end
  end
  remove_messages(expired)
  return_lapsed(lapsed)
  return outcomes, until_ms
end

-- Removes messages `ids` that check_reservations let be acted on, `until_ms` the end of each
-- one's reservation as it returned them: those with a live reservation sit only in the reserved set.
local function remove_checked(ids, until_ms, now)
  local reserved, others = {}, {}
  for i, id in ipairs(ids) do
    if until_ms[i] and tonumber(until_ms[i]) > now then
      reserved[#reserved + 1] = id
    else
      others[#others + 1] = id
    end
  end
  remove_reserved(reserved)
  remove_messages(others)
end

-- Removes those of messages `ids` (reservation ids `rids`, as check_reservations takes them) that
-- may be acted on, leaving the others; returns how many were removed and each one's outcome.
local function remove_allowed(ids, rids, now)
  local outcomes, until_ms = check_reservations(ids, rids, now)
  local allowed, allowed_until = {}, {}
  for i, outcome in ipairs(outcomes) do
    if outcome == OK then
      allowed[#allowed + 1] = ids[i]
      allowed_until[#allowed] = until_ms[i]
    end
  end
  remove_checked(allowed, allowed_until, now)
  return #allowed, outcomes
end

local function check_reservation(id, rid, now)
  return check_reservations({ id }, { rid }, now)[1]
end

-- Check of one message for touch and release: { outcome } on refusal, { OK } for a live
-- reservation. `rid` ANY_RESERVATION accepts the message's current reservation, if any.
local function check_live_reservation(id, rid, now)
  local given = rid
  if given == ANY_RESERVATION then rid = rid_parts(redis.call('HGET', K_RID, id)) or '' end
  local outcome = check_reservation(id, rid, now)
  if outcome ~= OK then return outcome end
  if rid == '' then return given == ANY_RESERVATION and NOT_RESERVED or TIMED_OUT end
  return OK
end

-- A message's own reservation timeout (s) when posted with one, else `default`.
local function message_timeout(id, default)
  return tonumber(redis.call('HGET', K_TIMEOUT, id) or default)
end

-- Available + delayed + reserved messages.
local function queue_size()
  return redis.call('ZCARD', K_READY) + redis.call('ZCARD', K_DELAYED) + redis.call('ZCARD', K_RESERVED)
end

-- Did the size, going from `before` to `after`, cross the alert's trigger in its direction?
-- Progressive alerts trigger at every multiple of `trigger` (never at 0).
local function alert_crossed(alert, before, after)
  local trigger = tonumber(alert.trigger)
  if alert.type == 'fixed' then
    if alert.direction == 'desc' then return before > trigger and after <= trigger end
    return before < trigger and after >= trigger
  end
  if alert.direction == 'desc' then
    local level = math.ceil(before / trigger)
    return level >= 2 and math.ceil(after / trigger) < level
  end
  return after >= trigger and math.floor(after / trigger) > math.floor(before / trigger)
end

-- Compares the size with the one of the last evaluation (field alert_size, set when alerts are
-- saved) and fires each crossed alert unless it fired less than `snooze` seconds ago.
-- Returns the fired alerts as JSON [[id, type, direction, trigger, target queue, size, ms], ...].
-- `state`: the fields alerts and alert_size when the caller has read them already; `quiet`: the
-- new size is recorded, nothing fires.
local function evaluate_alerts(now, state, quiet)
  state = state or redis.call('HMGET', K_QUEUE, 'alerts', 'alert_size')
  if not state[1] then return '[]' end
  local after = queue_size()
  local before = tonumber(state[2] or after)
  if before == after then return '[]' end
  redis.call('HSET', K_QUEUE, 'alert_size', after)
  if quiet then return '[]' end
  local fired = {}
  for _, alert in ipairs(cjson.decode(state[1])) do
    if alert_crossed(alert, before, after) then
      local field = 'alert_fired:' .. alert.id
      local last = tonumber(redis.call('HGET', K_QUEUE, field) or '-1')
      if last < 0 or now - last >= (tonumber(alert.snooze) or 0) * 1000 then
        redis.call('HSET', K_QUEUE, field, now)
        fired[#fired + 1] = { alert.id, alert.type, alert.direction, alert.trigger, alert.queue, after, now }
      end
    end
  end
  if #fired == 0 then return '[]' end
  return cjson.encode(fired)
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
