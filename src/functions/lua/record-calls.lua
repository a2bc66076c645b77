--@keys index calls_and_logs...
-- Writes, in their final state, the records of calls of one app that ran where they were
-- received (never queued, so never recorded before), with their logs; adds them to the app's
-- index and drops ids older than the retention from it. One script for a whole batch of calls.
-- KEYS[1] the app's call index; then for each call its record and its log.
-- ARGV: retention (ms), the smallest id the index keeps, app name, the records as one JSON array
--       (for each call an array of 10 strings: id, path, project id, format, type, status,
--       created at, started at, completed at, error ('' = none); one argument rather than ten a
--       call, which the sender pays for per argument); then each call's log ('' = none).
-- Returns how many calls were written.
local retention, floor, app = ARGV[1], ARGV[2], ARGV[3]
local records = cjson.decode(ARGV[4])
local calls = (#KEYS - 1) / 2
for i = 0, calls - 1 do
  local record, log = KEYS[2 + 2 * i], KEYS[3 + 2 * i]
  local fields, text = records[i + 1], ARGV[5 + i]
  redis.call('HSET', record, 'id', fields[1], 'app_name', app, 'path', fields[2], 'project_id', fields[3],
    'format', fields[4], 'type', fields[5], 'status', fields[6], 'created_at', fields[7],
    'started_at', fields[8], 'completed_at', fields[9])
  if fields[10] ~= '' then redis.call('HSET', record, 'error', fields[10]) end
  redis.call('PEXPIRE', record, retention)
  if text ~= '' then redis.call('SET', log, text, 'PX', retention) end
  redis.call('ZADD', KEYS[1], 0, fields[1])
end
redis.call('ZREMRANGEBYLEX', KEYS[1], '-', '(' .. floor)
redis.call('PEXPIRE', KEYS[1], retention)
return calls
