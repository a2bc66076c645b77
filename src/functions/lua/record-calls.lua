--@keys index calls_and_logs...
-- Writes, in their final state, the records of calls of one app that ran where they were
-- received (never queued, so never recorded before), with their logs; adds them to the app's
-- index and drops ids older than the retention from it. One script for a whole batch of calls.
-- KEYS[1] the app's call index; then for each call its record and its log.
-- ARGV: retention (ms), the smallest id the index keeps, app name; then for each call 11 values:
--       id, path, project id, format, type, status, created at, started at, completed at,
--       error ('' = none), log ('' = none).
-- Returns how many calls were written.
local retention, floor, app = ARGV[1], ARGV[2], ARGV[3]
local calls = (#KEYS - 1) / 2
for i = 0, calls - 1 do
  local record, log = KEYS[2 + 2 * i], KEYS[3 + 2 * i]
  local a = 4 + 11 * i
  redis.call('HSET', record, 'id', ARGV[a], 'app_name', app, 'path', ARGV[a + 1], 'project_id', ARGV[a + 2],
    'format', ARGV[a + 3], 'type', ARGV[a + 4], 'status', ARGV[a + 5], 'created_at', ARGV[a + 6],
    'started_at', ARGV[a + 7], 'completed_at', ARGV[a + 8])
  if ARGV[a + 9] ~= '' then redis.call('HSET', record, 'error', ARGV[a + 9]) end
  redis.call('PEXPIRE', record, retention)
  if ARGV[a + 10] ~= '' then redis.call('SET', log, ARGV[a + 10], 'PX', retention) end
  redis.call('ZADD', KEYS[1], 0, ARGV[a])
end
redis.call('ZREMRANGEBYLEX', KEYS[1], '-', '(' .. floor)
redis.call('PEXPIRE', KEYS[1], retention)
return calls
