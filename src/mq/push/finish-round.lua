-- Records one delivery round of a reserved push message and decides its fate: when every
-- subscriber is done the message is removed, else it waits on the delayed set (at the front when
-- due) until the next retry or acknowledgement deadline.
-- ARGV: id, reservation id, mode (unicast/multicast), subscriber names (JSON list),
-- status updates (JSON flat list name, status JSON), status lifetime while pending (ms), wake
-- channel, status lifetime once delivery is over (ms).
-- Returns { 1, statuses (JSON list, false = never tried) } when delivery is over, else { 0 }.
local id, rid, mode = ARGV[1], ARGV[2], ARGV[3]
local names, updates = cjson.decode(ARGV[4]), cjson.decode(ARGV[5])
if #updates > 0 then redis.call('HSET', K_STATUS, unpack(updates)) end
redis.call('PEXPIRE', K_STATUS, ARGV[6])
local now = now_ms()
local statuses, raw = push_statuses(names)
if push_done(mode, statuses) then
  remove_messages({ id })
  redis.call('PEXPIRE', K_STATUS, ARGV[8])
  return { 1, cjson.encode(raw) }
end
if redis.call('HGET', K_RID, id) == rid then
  local due = push_next_due(statuses, now)
  redis.call('ZREM', K_RESERVED, id)
  redis.call('HDEL', K_RID, id)
  if due <= now then
    redis.call('ZADD', K_READY, front_scores(1), id)
    redis.call('PUBLISH', ARGV[7], 1)
  else
    redis.call('ZADD', K_DELAYED, due, id)
    redis.call('SADD', K_RELEASED, id)
  end
end
return { 0 }
