--@keys task log
-- Appends the chunk numbered `seq` of a runner's output to a task's log, as append-log.lua
-- does, in order (chunks count from 1) and only while the task runs on that runner. A chunk sent
-- again after a lost answer is acknowledged without a second copy. A chunk past a gap is written
-- after a line saying how many never came: a runner gives a chunk up after its tries (release
-- f89fce9's after about 6 s, as while its controller restarts) and numbers the next one on, and
-- refusing every later chunk lost the rest of the output and failed the task.
-- KEYS: task hash, log string    ARGV: chunk, maximum bytes, seq, runner id
-- Returns {log size, 'ok'}, {log size, 'duplicate'} or {0, 'not-running'}.
local status = redis.call('HGET', KEYS[1], 'status')
if (status ~= 'preparing' and status ~= 'running') or redis.call('HGET', KEYS[1], 'runner') ~= ARGV[4] then
  return {0, 'not-running'}
end
local last = tonumber(redis.call('HGET', KEYS[1], 'log_seq') or '0')
local seq = tonumber(ARGV[3])
local size = redis.call('STRLEN', KEYS[2])
if seq <= last then return {size, 'duplicate'} end
redis.call('HSET', KEYS[1], 'log_seq', seq)
local limit = tonumber(ARGV[2])
if size >= limit then return {size, 'ok'} end
local chunk = ARGV[1]
if seq > last + 1 then
  chunk = '[log: ' .. (seq - last - 1) .. ' chunk(s) of output never reached the installation]\n' .. chunk
end
if size + #chunk > limit then
  chunk = string.sub(chunk, 1, limit - size) .. '\n[log truncated: it exceeded ' .. limit .. ' bytes]\n'
end
local total = redis.call('APPEND', KEYS[2], chunk)
redis.call('HSET', KEYS[1], 'log_size', total)
return {total, 'ok'}
