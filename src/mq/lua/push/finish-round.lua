--@include ../includes/queue-keys.lua
--@include ../includes/rid-parts.lua
--@include ../includes/index-reserved-plain.lua
--@include ../includes/front-scores.lua
--@include ../includes/remove-messages.lua
--@include push-common.lua
--@keys queue ready delayed reserved expiry body count rid headers released dead timeout statuses...
-- Records delivery rounds of reserved push messages and decides each one's fate: when every
-- subscriber is done the message is removed, else it waits on the delayed set (at the front when
-- due) until its next retry or acknowledgement deadline.
-- KEYS[QUEUE_KEY_COUNT + i]: the status hash of the i-th round's message.
-- ARGV: mode (unicast/multicast), subscriber names (JSON list), status lifetime while pending
-- (ms), wake channel, status lifetime once delivery is over (ms), rounds (JSON list of
-- [id, reservation id, status updates as a flat list name, status JSON]).
-- Returns JSON: a list of [round number, statuses (list, false = never tried)] of the rounds
-- whose delivery is over.
local mode, names = ARGV[1], cjson.decode(ARGV[2])
local pending_ttl, finished_ttl = ARGV[3], ARGV[5]
local now = now_ms()
local over, woken = {}, 0
for i, round in ipairs(cjson.decode(ARGV[6])) do
  local key, id, rid, updates = KEYS[QUEUE_KEY_COUNT + i], round[1], round[2], round[3]
  if #updates > 0 then redis.call('HSET', key, unpack(updates)) end
  local statuses, raw = push_statuses(key, names)
  if push_done(mode, statuses) then
    remove_messages({ id })
    redis.call('PEXPIRE', key, finished_ttl)
    over[#over + 1] = { i, raw }
  else
    redis.call('PEXPIRE', key, pending_ttl)
    if rid_parts(redis.call('HGET', K_RID, id)) == rid then
      local due = push_next_due(statuses, now)
      index_reserved_plain({ id })
      redis.call('ZREM', K_RESERVED, id)
      redis.call('HDEL', K_RID, id)
      if due <= now then
        redis.call('ZADD', K_READY, front_scores(1), id)
        woken = woken + 1
      else
        redis.call('ZADD', K_DELAYED, due, id)
        redis.call('SADD', K_RELEASED, id)
      end
    end
  end
end
if woken > 0 then redis.call('PUBLISH', ARGV[4], woken) end
if #over == 0 then return '[]' end
return cjson.encode(over)
