--@keys task log
-- Appends output to a task's log and counts its size, up to a limit; past the limit
-- one notice is written and further output is dropped.
-- KEYS: task hash, log string    ARGV: chunk, maximum bytes
local size = redis.call('STRLEN', KEYS[2])
local limit = tonumber(ARGV[2])
if size >= limit then return size end
local chunk = ARGV[1]
if size + #chunk > limit then
  chunk = string.sub(chunk, 1, limit - size) .. '\n[log truncated: it exceeded ' .. limit .. ' bytes]\n'
end
local total = redis.call('APPEND', KEYS[2], chunk)
redis.call('HSET', KEYS[1], 'log_size', total)
return total
