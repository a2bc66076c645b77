-- Reserves up to n messages from the front of the queue (after maintain()). Messages whose
-- reserved_count already reached the dead letter threshold are moved to the dead letter
-- outbox instead (dead-letters.ts hands them to the dead letter queue).
-- ARGV: n, timeout (s; 0 = the queue's), delete ('1' removes the messages at once),
-- reservation id prefix, default timeout (s).
-- Returns { -1 } for a missing queue, else { moved, next due ms or -1, then per message:
-- id, body, reserved_count, reservation_id, push headers or '' }.
if redis.call('EXISTS', K_QUEUE) == 0 then return { -1 } end
local now = now_ms()
maintain(now)
local n, timeout = tonumber(ARGV[1]), tonumber(ARGV[2])
local delete, prefix = ARGV[3] == '1', ARGV[4]
if timeout == 0 then timeout = tonumber(redis.call('HGET', K_QUEUE, 'timeout') or ARGV[5]) end
local max_reservations, dead_letter_queue
local dead_letter = redis.call('HGET', K_QUEUE, 'dead_letter')
if dead_letter then
  local setting = cjson.decode(dead_letter)
  max_reservations, dead_letter_queue = tonumber(setting.max_reservations), setting.queue_name
end

local out, got, moved = { 0, -1 }, 0, 0
for _ = 1, 10 do
  if got >= n then break end
  local popped = redis.call('ZPOPMIN', K_READY, n - got)
  if #popped == 0 then break end
  for i = 1, #popped, 2 do
    local id = popped[i]
    local expiry = redis.call('ZSCORE', K_EXPIRY, id)
    local body = redis.call('HGET', K_BODY, id)
    if not body or not expiry or tonumber(expiry) <= now then
      remove_message(id)
    else
      local count = tonumber(redis.call('HGET', K_COUNT, id) or '0')
      local headers = redis.call('HGET', K_HEADERS, id) or ''
      if max_reservations and count >= max_reservations then
        redis.call('RPUSH', K_DEAD, cjson.encode({ id = id, body = body, reserved_count = count, push_headers = headers, queue = dead_letter_queue }))
        remove_message(id)
        moved = moved + 1
      else
        count = count + 1
        local rid = prefix .. string.format('%02x', got)
        if delete then
          remove_message(id)
        else
          redis.call('HSET', K_COUNT, id, count)
          redis.call('HSET', K_RID, id, rid)
          redis.call('ZADD', K_RESERVED, now + timeout * 1000, id)
        end
        got = got + 1
        out[#out + 1] = id
        out[#out + 1] = body
        out[#out + 1] = count
        out[#out + 1] = rid
        out[#out + 1] = headers
      end
    end
  end
end
out[1] = moved
if got == 0 then out[2] = next_due() end
return out
