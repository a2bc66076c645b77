--@keys task log
-- Appends the chunk numbered `seq` of a runner's output to a task's log, as append-log.lua
-- does, only if it is the next one (chunks count from 1) and the task still runs on that
-- runner. A chunk sent again after a lost answer is acknowledged without a second copy.
-- KEYS: task hash, log string    ARGV: chunk, maximum bytes, seq, runner id
-- Returns {log size, 'ok'}, {log size, 'duplicate'}, {last seq, 'out-of-order'} or
-- {0, 'not-running'}.
local status = redis.call('HGET', KEYS[1], 'status')
if (status ~= 'preparing' and status ~= 'running') or redis.call('HGET', KEYS[1], 'runner') ~= ARGV[4] then
  return {0, 'not-running'}
end
local last = tonumber(redis.call('HGET', KEYS[1], 'log_seq') or '0')
local seq = tonumber(ARGV[3])
local size = redis.call('STRLEN', KEYS[2])
if seq <= last then return {size, 'duplicate'} end
if seq ~= last + 1 then return {last, 'out-of-order'} end
redis.call('HSET', KEYS[1], 'log_seq', seq)
local limit = tonumber(ARGV[2])
if size >= limit then return {size, 'ok'} end
local chunk = ARGV[1]
if size + #chunk > limit then
  chunk = string.sub(chunk, 1, limit - size) .. '\n[log truncated: it exceeded ' .. limit .. ' bytes]\n'
end
local total = redis.call('APPEND', KEYS[2], chunk)
redis.call('HSET', KEYS[1], 'log_size', total)
return {total, 'ok'}
