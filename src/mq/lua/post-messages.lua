#!lua
--@include includes/queue-keys.lua
--@include includes/plain-layout.lua
--@include includes/queue-record.lua
--@include includes/variadic.lua
--@include includes/plain-allowed.lua
--@include includes/evaluate-alerts.lua
-- Puts messages on a queue, creating the queue with default settings when it is missing.
-- ARGV: default expiration (s), wake channel, '1' when the ids may already be on the queue (dead
-- letter hand-over may repeat; such ids are skipped), else '0' (fresh ids: no look-up), the most
-- bytes the queue's bodies may take ('' = no limit), the bodies' bytes of the whole post (checked
-- against that limit by the post's first chunk, so a refused post stores nothing), '1' when the
-- messages are an alert's (they move the size alerts compare with but fire none, so alerts
-- posting to each other cannot loop), else '0', then the
-- messages in three plain arguments (cheap to write and to take apart, whatever the bodies hold):
-- their ids joined by ',', their bodies' byte lengths joined by ',', their bodies one after the
-- other; and '' when every other field of every message is its default, else a JSON list of
-- [delay (s), push headers (JSON text or ''), reserved_count, expires in (s; 0 = the queue's
-- message_expiration), reservation timeout (s; 0 = the queue's)] per message; then '1' when plain
-- messages may be written (the storage feature flag plain_messages, see PLAIN_EXPIRATION); then
-- '1' when the bodies were written apart, by the HSET of the body hash just before this script in
-- the same MULTI (large bodies of fresh ids: MessageQueue's insert), the joined bodies then '':
-- Lua never copies them, and a refused post takes them out again.
-- Returns { queue created (0/1), messages inserted (-1: refused by the byte limit, nothing
-- written), fired alerts (JSON, see evaluate_alerts) }.
local now = now_ms()
local created = 0
local apart = ARGV[12] == '1'
local ids, lengths = {}, {}
for id in string.gmatch(ARGV[7], '[^,]+') do ids[#ids + 1] = id end
for length in string.gmatch(ARGV[8], '%d+') do lengths[#lengths + 1] = tonumber(length) end
local head = queue_record('expiration', 'alerts', 'alert_size', 'bytes', PLAIN_EXPIRATION)
if ARGV[4] ~= '' and tonumber(head[5] or '0') + tonumber(ARGV[5]) > tonumber(ARGV[4]) then
  if apart then variadic('HDEL', K_BODY, ids) end
  return { 0, -1, '[]' }
end
if not head[1] then
  redis.call('HSET', K_QUEUE, 'version', 1, 'created_at', now, 'updated_at', now, 'total', 0, 'front', 0)
  created = 1
end
local expiration_ms = tonumber(head[2] or ARGV[1]) * 1000
-- Plain messages keep no expiry entry when the queue's expiration is the one plain messages on
-- the ready set have, which may change only while none are there (see PLAIN_EXPIRATION).
local plain_ms = tonumber(head[6] or '')
local plain = plain_allowed(ARGV[11])
if plain and plain_ms ~= expiration_ms and redis.call('ZCARD', K_READY) == 0 then
  plain_ms = expiration_ms
  redis.call('HSET', K_QUEUE, PLAIN_EXPIRATION, plain_ms)
end
local unindexed = plain and plain_ms == expiration_ms

local bodies_of = {}
if not apart then
  local joined, from = ARGV[9], 1
  for m, length in ipairs(lengths) do
    bodies_of[m] = string.sub(joined, from, from + length - 1)
    from = from + length
  end
end
local extras = ARGV[10] ~= '' and cjson.decode(ARGV[10]) or nil
local present = {}
if ARGV[3] == '1' then
  for m, id in ipairs(ids) do present[m] = redis.call('HEXISTS', K_BODY, id) == 1 end
end

local bodies, headers, counts, expiry, ready, delayed, timeouts = {}, {}, {}, {}, {}, {}, {}
local written, added = 0, 0
-- Every message of a plain post has the same scores: formatted once, not once per message.
local now_text, default_expiry = string.format('%.0f', now), string.format('%.0f', now + expiration_ms)
for m, id in ipairs(ids) do
  if not present[m] then
    written, added = written + 1, added + lengths[m]
    if not apart then
      bodies[#bodies + 1] = id
      bodies[#bodies + 1] = bodies_of[m]
    end
    local delay, expires_in = 0, 0
    if extras then
      local extra = extras[m]
      delay, expires_in = tonumber(extra[1]), tonumber(extra[4])
      if extra[2] ~= '' then
        headers[#headers + 1] = id
        headers[#headers + 1] = extra[2]
      end
      if tonumber(extra[3]) > 0 then
        counts[#counts + 1] = id
        counts[#counts + 1] = extra[3]
      end
      if tonumber(extra[5]) > 0 then
        timeouts[#timeouts + 1] = id
        timeouts[#timeouts + 1] = extra[5]
      end
    end
    if delay > 0 or expires_in > 0 or not unindexed then
      expiry[#expiry + 1] = expires_in > 0 and now + expires_in * 1000 or default_expiry
      expiry[#expiry + 1] = id
    end
    if delay > 0 then
      delayed[#delayed + 1] = now + delay * 1000
      delayed[#delayed + 1] = id
    else
      ready[#ready + 1] = now_text
      ready[#ready + 1] = id
    end
  end
end
if written == 0 then return { created, 0, '[]' } end
if #bodies > 0 then variadic('HSET', K_BODY, bodies, 2) end
if #headers > 0 then variadic('HSET', K_HEADERS, headers, 2) end
if #counts > 0 then variadic('HSET', K_COUNT, counts, 2) end
if #timeouts > 0 then variadic('HSET', K_TIMEOUT, timeouts, 2) end
if #expiry > 0 then variadic('ZADD', K_EXPIRY, expiry, 2) end
if #delayed > 0 then variadic('ZADD', K_DELAYED, delayed, 2) end
if #ready > 0 then variadic('ZADD', K_READY, ready, 2) end
redis.call('HINCRBY', K_QUEUE, 'total', written)
redis.call('HINCRBY', K_QUEUE, 'bytes', added)
if #ready > 0 then redis.call('PUBLISH', ARGV[2], #ready / 2) end
return { created, written, evaluate_alerts(now, { head[3], head[4] }, ARGV[6] == '1') }
